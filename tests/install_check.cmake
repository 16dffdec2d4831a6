# Installs the built fusebox into a scratch prefix, then configures, builds and
# runs examples/ as an outside project that finds it with find_package.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# The installed driver starts from its prefix (RUNPATH $ORIGIN/../lib) and runs a case.
run(${WORK_DIR}/prefix/bin/fusebox-benchdnn --mode=C --case=${SOURCE_DIR}/benchdnn_cases/op/add_f32.json)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/getting_started)
run(${WORK_DIR}/build/fusion_inplace)
run(${WORK_DIR}/build/from_onednn_graph)
message(STATUS "outside project built and ran against ${WORK_DIR}/prefix")
