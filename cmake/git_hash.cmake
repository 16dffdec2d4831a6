# Writes OUT with the commit the sources are at (FUSEBOX_GIT_HASH), at every
# build, touching it only when the commit changed.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT hash)
  set(hash "unknown")
endif()
set(text "#define FUSEBOX_GIT_HASH \"${hash}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
