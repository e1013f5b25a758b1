// export.h — FORGEMETER_API marks what forgemeter's shared libraries export.
// They are built with hidden visibility by default, so only the public API
// (and the little one component needs of another) is in their symbol tables;
// in a static build the mark changes nothing.
#pragma once

#define FORGEMETER_API __attribute__((visibility("default")))
