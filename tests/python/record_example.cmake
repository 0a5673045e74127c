# cmake -DTTD=... -DOUT=... -DPROG=... [-DARGS=a;b] -P record_example.cmake
# Records PROG into OUT. `ttd record` exits with the program's status
# (linked_list exits 1 on purpose); a recording that failed leaves no trace.
file(REMOVE ${OUT})
execute_process(COMMAND ${TTD} record -q -o ${OUT} -- ${PROG} ${ARGS} RESULT_VARIABLE status)
if(NOT EXISTS ${OUT})
  message(FATAL_ERROR "ttd record ${PROG} failed (exit ${status}): no trace")
endif()
