# FORGEMETER_SANITIZE selects one sanitizer build for every target in the tree.
#   address -> AddressSanitizer + UndefinedBehaviorSanitizer (no recovery: any report fails)
#   thread  -> ThreadSanitizer
# UBSan leaves out three checks that ASan already answers or x86-64 makes moot:
# null (a null access faults, and ASan reports the SEGV with its stack),
# alignment (no type-punned access here; x86-64 reads misaligned data) and
# pointer-overflow (an out-of-bounds pointer is caught where it is used). At
# -O0 in header-heavy code their per-check data was 85% of a test binary's
# .data (report/command.cc: 2.2 MB -> 0.36 MB), which every process start
# relocates and LeakSanitizer scans at exit, and 30% of the compile time.
if(FORGEMETER_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=alignment,null,pointer-overflow
                      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(FORGEMETER_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT FORGEMETER_SANITIZE STREQUAL "")
  message(FATAL_ERROR "FORGEMETER_SANITIZE must be '', 'address' or 'thread', not '${FORGEMETER_SANITIZE}'")
endif()
