# Replays every graph dump in DUMP_DIR with fusebox-benchdnn in correctness
# mode, then performance mode: a dump of Add/Equal ops must PASS, one holding an op fusebox does not
# run must report UNIMPLEMENTED, and nothing else may happen. (A graph dump
# holds as many partitions as the graph gave: 0 skips the partition count.)
file(GLOB_RECURSE dumps "${DUMP_DIR}/*.json")
list(LENGTH dumps n)
if(n LESS 5)
  message(FATAL_ERROR "expected the dumps of dump_test in ${DUMP_DIR}, found ${n} files")
endif()
foreach(dump ${dumps})
  file(READ ${dump} text)
  execute_process(COMMAND ${DRIVER} --mode=C --expected-n-partitions=0 --case=${dump} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(text MATCHES "Wildcard")
    set(want "UNIMPLEMENTED")
  else()
    set(want "PASSED")
  endif()
  if(NOT out MATCHES "0:${want}")
    message(FATAL_ERROR "replaying ${dump}: expected ${want}, got:\n${out}${err}")
  endif()
  if(want STREQUAL "PASSED") # and in performance mode
    execute_process(COMMAND ${DRIVER} --mode=P --roof=skip --max-ms-per-prb=5 --expected-n-partitions=0 --case=${dump}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT out MATCHES "perf,cpu,[^\n]*min_us=[0-9.]+" OR NOT out MATCHES "0:PASSED")
      message(FATAL_ERROR "replaying ${dump} in performance mode:\n${out}${err}")
    endif()
  endif()
  message(STATUS "${dump}: ${want}")
endforeach()
