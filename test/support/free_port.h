// free_port.h — a TCP port on 127.0.0.1 for a server a test starts as a child
// process (PostgreSQL, nghttpd), which must be told its port up front.
#pragma once

namespace fmtest {

// A port the kernel just handed out on 127.0.0.1 and took back: free unless
// another process grabs it before the server binds it, so a caller whose
// server fails to bind tries again with a new one. 0 when none was handed out.
int free_loopback_port();

}  // namespace fmtest
