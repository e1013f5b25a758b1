// placeholder until the CLI issue
#include <cstdio>
int main() { std::puts("forgemeter: not yet"); return 1; }
