# Builds and runs examples/consumer against this build of kstream, the way users consume it (ctest runs it):
#   MODE=install      cmake --install into a scratch prefix, then find_package(kstream REQUIRED)
#   MODE=subproject   add_subdirectory(kstream sources); the subproject must build the library alone
#   MODE=mismatch     installed kstream, but the consumer names another Kokkos (OTHER_KOKKOS_DIR): find_package
#                     must refuse, saying which Kokkos kstream was built with
# Variables: MODE, SOURCE_DIR, BUILD_DIR (this build), WORK_DIR (scratch), GENERATOR, CXX_COMPILER, KOKKOS_DIR,
# OTHER_KOKKOS_DIR (mismatch only).
cmake_minimum_required(VERSION 3.22)

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "consumer test (${MODE}): '${ARGV}' failed (${status}):\n${out}\n${err}")
  endif()
  message("${out}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(consumer_build "${WORK_DIR}/build")
# Debug: the test checks the package, not speed, and the library builds in a fraction of a Release build's time.
set(configure ${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${consumer_build}" -G "${GENERATOR}"
              -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DKokkos_DIR=${KOKKOS_DIR} -DCMAKE_BUILD_TYPE=Debug)
if(MODE STREQUAL "install")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  foreach(installed include/kstream/kstream.hpp include/kstream/version.hpp include/kstream/impl/launch.hpp)
    if(NOT EXISTS "${WORK_DIR}/prefix/${installed}")
      message(FATAL_ERROR "consumer test (install): ${installed} was not installed")
    endif()
  endforeach()
  run(${configure} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
elseif(MODE STREQUAL "mismatch")
  run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
  list(TRANSFORM configure REPLACE "^-DKokkos_DIR=.*" "-DKokkos_DIR=${OTHER_KOKKOS_DIR}")
  execute_process(COMMAND ${configure} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(status EQUAL 0)
    message(FATAL_ERROR "consumer test (mismatch): find_package(kstream) accepted the Kokkos at ${OTHER_KOKKOS_DIR}")
  endif()
  string(REGEX REPLACE "[ \t\r\n]+" " " said "${out}${err}")  # CMake wraps long messages
  if(NOT said MATCHES "kstream was built with Kokkos [0-9.]+ \\(devices [A-Za-z_;]+, from")
    message(FATAL_ERROR "consumer test (mismatch): refused without saying why:\n${out}\n${err}")
  endif()
  message("refused as expected:\n${err}")
  return()
elseif(MODE STREQUAL "subproject")
  run(${configure} -DKSTREAM_SOURCE_DIR=${SOURCE_DIR})
else()
  message(FATAL_ERROR "consumer test: MODE must be install or subproject, got '${MODE}'")
endif()
run(${CMAKE_COMMAND} --build "${consumer_build}")
if(MODE STREQUAL "subproject")
  # Tests, benchmarks and examples are the top-level project's business only.
  foreach(extra tests bench kstream_example_fused_chain)
    if(EXISTS "${consumer_build}/kstream/${extra}")
      message(FATAL_ERROR "consumer test (subproject): kstream built '${extra}' as a subproject")
    endif()
  endforeach()
endif()
run("${consumer_build}/app")
