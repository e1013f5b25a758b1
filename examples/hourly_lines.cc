// placeholder until the meter lands
int main() { return 0; }
