# Writes the manual page OUTPUT (tmcml.1) from `TMCML --help`, so the page
# and the program's usage never disagree.  The usage text is set as it is
# printed (no-fill), each backslash, hyphen and leading dot escaped for roff.
# usage: cmake -DTMCML=... -DVERSION=... -DOUTPUT=... -P man.cmake
execute_process(COMMAND ${TMCML} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TMCML} --help exited ${rc}")
endif()
string(REPLACE "\\" "\\e" help "${help}")
string(REPLACE "-" "\\-" help "${help}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
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
.SH ENVIRONMENT
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
README.md, docs/runs.md, docs/tuning.md, docs/library.md.
")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
