# TMCML_STATIC_DEPS=ON (the Python package's own build of the library,
# python/build_backend.py): Lua, cJSON and libpng (with zlib) are linked from
# their static archives where an archive is found that can go into a shared
# library, so that libtmcml.so needs the C library alone and the wheel that
# carries it can be tagged manylinux (docs/library.md, "Installing the Python
# package").  Every other one stays shared, and this says which and why; the
# wheel's tag is read from the library built, whatever was found here.
#
# An archive can go into libtmcml.so when it was compiled position-
# independent for a shared library (-fPIC).  Debian 12's liblua5.4.a and
# libpng16.a are compiled for executables (their code reaches stdout and
# stderr as only an executable may) and Debian has no libcjson.a: there, all
# three stay shared.  Archives of one's own, built with -fPIC:
#   -DTMCML_LUA_ARCHIVE=/path/liblua.a  (TMCML_CJSON_ARCHIVE,
#   TMCML_PNG_ARCHIVE, TMCML_ZLIB_ARCHIVE likewise)
# or CMAKE_PREFIX_PATH naming the prefix that holds them.  The version script
# (api/tmcml.map) keeps their symbols inside the library.

set(TMCML_STATIC_PROBE ${CMAKE_BINARY_DIR}/static_probe)
file(WRITE ${TMCML_STATIC_PROBE}/probe.c "int tmcml_static_probe(void) { return 0; }\n")
file(WRITE ${TMCML_STATIC_PROBE}/probe.map "{ global: tmcml_static_probe; local: *; };\n")

# tmcml_static_dep(NAME RESULT NAMES archive... [NEEDS library...]): RESULT
# set to the archive (TMCML_<NAME>_ARCHIVE, found by NAMES) when the whole of
# it links into a shared object, with NEEDS after it and nothing left
# undefined; else to "", and the reason said.
function(tmcml_static_dep name result)
  cmake_parse_arguments(DEP "" "" "NAMES;NEEDS" ${ARGN})
  string(TOUPPER ${name} upper)
  set(cache TMCML_${upper}_ARCHIVE)
  find_library(${cache} NAMES ${DEP_NAMES}
    DOC "${name}'s static archive, for TMCML_STATIC_DEPS (packaging/static_deps.cmake)")
  set(${result} "" PARENT_SCOPE)
  if(NOT ${cache})
    message(STATUS "tmcml: TMCML_STATIC_DEPS: ${name} stays shared: no static archive "
      "(${DEP_NAMES}; set ${cache})")
    return()
  endif()
  set(needs "")
  foreach(need IN LISTS DEP_NEEDS)
    if(IS_ABSOLUTE "${need}")
      list(APPEND needs ${need})
    else()
      list(APPEND needs -l${need})
    endif()
  endforeach()
  execute_process(
    COMMAND ${CMAKE_C_COMPILER} -shared -fPIC -o ${TMCML_STATIC_PROBE}/${name}.so
      ${TMCML_STATIC_PROBE}/probe.c -Wl,--version-script=${TMCML_STATIC_PROBE}/probe.map
      -Wl,--no-undefined -Wl,--whole-archive ${${cache}} -Wl,--no-whole-archive ${needs}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    # The linker's first complaint that is not a warning names the reason.
    string(REPLACE ";" "," err "${err}")
    string(REPLACE "\n" ";" lines "${err}")
    set(why "")
    foreach(line IN LISTS lines)
      if(line AND NOT line MATCHES "warning:")
        set(why "${line}")
        break()
      endif()
    endforeach()
    message(STATUS "tmcml: TMCML_STATIC_DEPS: ${name} stays shared: ${${cache}} cannot go into "
      "a shared library (not compiled with -fPIC?): ${why}")
    return()
  endif()
  message(STATUS "tmcml: TMCML_STATIC_DEPS: ${name} linked in from ${${cache}}")
  set(${result} ${${cache}} PARENT_SCOPE)
endfunction()

tmcml_static_dep(lua lua_archive NAMES liblua5.4.a liblua-5.4.a liblua54.a
  NEEDS m ${CMAKE_DL_LIBS})
if(lua_archive)
  set(LUA_LIBRARY ${lua_archive} m ${CMAKE_DL_LIBS})
endif()

tmcml_static_dep(cjson cjson_archive NAMES libcjson.a NEEDS m)
if(cjson_archive)
  set(CJSON_LIBRARY ${cjson_archive} m)
endif()

tmcml_static_dep(png png_archive NAMES libpng16.a libpng.a NEEDS z m)
if(png_archive)
  # libpng's archive needs zlib: its archive too where it can go in.
  tmcml_static_dep(zlib zlib_archive NAMES libz.a)
  if(zlib_archive)
    set(PNG_LIBRARY ${png_archive} ${zlib_archive} m)
  else()
    set(PNG_LIBRARY ${png_archive} z m)
  endif()
endif()
