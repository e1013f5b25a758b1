# FORGEMETER_SANITIZE selects one sanitizer build for every target in the tree.
#   address -> AddressSanitizer + UndefinedBehaviorSanitizer (no recovery: any report fails)
#   thread  -> ThreadSanitizer
if(FORGEMETER_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(FORGEMETER_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT FORGEMETER_SANITIZE STREQUAL "")
  message(FATAL_ERROR "FORGEMETER_SANITIZE must be '', 'address' or 'thread', not '${FORGEMETER_SANITIZE}'")
endif()
