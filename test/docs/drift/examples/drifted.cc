// Not compiled: the examples/ of a fixture tree (test/docs/CMakeLists.txt).
int answer() { return 42; }

void drifted() {
  forgemeter::Thing thing{.a = 1, .b = 2};
  use(thing);
}
