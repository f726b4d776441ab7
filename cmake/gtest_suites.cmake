# Runs at ctest time (a TEST_INCLUDE_FILES script): registers one ctest test per GoogleTest suite
# of TEST_EXECUTABLE, each running the whole suite in one process.
#
# Why: the sanitizer build's test binaries take 0.1-0.6 s each just to start (ASan maps its
# shadow memory and relocates a 300 MB image), so one process per test case spent most of that
# build's ctest time starting 4,000 processes. A suite per process keeps the same cases (none is
# dropped) and still spreads the suites over ctest -j.
#
# Inputs: TEST_EXECUTABLE, TEST_PREFIX (the binary's name), TEST_TIMEOUT, TEST_WORKING_DIRECTORY.
if(NOT EXISTS "${TEST_EXECUTABLE}")
  add_test("${TEST_PREFIX}.NOT_BUILT" "${TEST_EXECUTABLE}")
  return()
endif()
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
  WORKING_DIRECTORY "${TEST_WORKING_DIRECTORY}"
  OUTPUT_VARIABLE listing RESULT_VARIABLE listed TIMEOUT 120)
if(NOT listed EQUAL 0)
  # A binary that cannot list its tests fails as one test, with its output.
  add_test("${TEST_PREFIX}.LIST_FAILED" "${TEST_EXECUTABLE}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # Suite lines start in column 0 ("Suite." or "Prefix/Suite.  # TypeParam = ..."); case lines
  # are indented.
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${TEST_PREFIX}.${suite}")
    add_test("${name}" "${TEST_EXECUTABLE}" "--gtest_filter=${suite}.*")
    set_tests_properties("${name}" PROPERTIES
      TIMEOUT "${TEST_TIMEOUT}" WORKING_DIRECTORY "${TEST_WORKING_DIRECTORY}")
  endif()
endforeach()
