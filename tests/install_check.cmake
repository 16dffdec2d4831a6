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
run(${WORK_DIR}/build/c_api)
run(${WORK_DIR}/build/onnx_import ${SOURCE_DIR}/examples/onnx/transformer_block.onnx)
run(${WORK_DIR}/prefix/bin/fusebox-onnx ${SOURCE_DIR}/examples/onnx/transformer_block.onnx)
# C and non-CMake users: pkg-config.
find_program(PKG_CONFIG pkg-config REQUIRED)
find_program(CC_COMPILER NAMES cc gcc clang REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/prefix/lib/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs fusebox OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find fusebox in ${WORK_DIR}/prefix/lib/pkgconfig")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CC_COMPILER} -std=c11 -Wall -Wextra -Werror ${SOURCE_DIR}/examples/c_api.c ${flags}
    -Wl,-rpath,${WORK_DIR}/prefix/lib -o ${WORK_DIR}/c_api_pkgconfig)
run(${WORK_DIR}/c_api_pkgconfig)
message(STATUS "outside project built and ran against ${WORK_DIR}/prefix")
