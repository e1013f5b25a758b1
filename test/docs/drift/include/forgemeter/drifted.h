// forgemeter/drifted.h — a header whose example does not match examples/.
//
//   forgemeter::Thing thing{.b = 2, .a = 1};
//   use(thing);
//
// Indented text that is not code is no example:
//   forge HTTP: <N> requests in the hour ending <YYYY-MM-DDTHH:00Z> — <entry>, …
//   * a bullet that ends like code;
//     and goes on;
#pragma once
