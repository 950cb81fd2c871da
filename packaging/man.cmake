# Writes the manual page OUTPUT (tmcml.1) from `TMCML --help` and the
# commands' own `--help` (lut, plot, conv, profiles), so the page and the
# program's usage never disagree.  The usage texts are set as they are
# printed (no-fill), each backslash, hyphen and leading dot escaped for roff.
# usage: cmake -DTMCML=... -DVERSION=... -DOUTPUT=... -P man.cmake

# OUT: `TMCML ARGS...`'s output escaped for roff.
function(usage_text out)
  execute_process(COMMAND ${TMCML} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${TMCML} ${ARGN} exited ${rc}")
  endif()
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

usage_text(help --help)
set(commands "")
foreach(command lut plot conv profiles)
  usage_text(text ${command} --help)
  string(APPEND commands ".SS tmcml ${command}\n.nf\n${text}.fi\n")
endforeach()
file(WRITE ${OUTPUT}.tmp
".TH TMCML 1 \"\" \"tmcml ${VERSION}\" \"User Commands\"
.SH NAME
tmcml \\- MCML\\-compatible Monte Carlo simulation of light in layered tissue, on GPUs and CPUs
.SH SYNOPSIS
.B tmcml run
.I FILE.mci
[options]
.SH DESCRIPTION
The usage below is what
.B tmcml \\-\\-help
prints.
.PP
.nf
${help}.fi
.SH COMMANDS
What each command's
.B \\-\\-help
prints.
${commands}.SH ENVIRONMENT
.TP
.B TMCML_PROFILE_DIR
a profile directory searched before the user's and the shipped ones
.SH FILES
.TP
.I PREFIX/share/tmcml/profiles
the profiles shipped with tmcml, found relative to the program
.SH SEE ALSO
The manual in
.IR PREFIX/share/doc/tmcml :
README.md, docs/index.md (which page covers what), docs/cli.md, docs/runs.md,
docs/tuning.md, docs/library.md.
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
