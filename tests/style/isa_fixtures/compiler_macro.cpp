// Fixture of tests/style/isa_branches.py (never compiled): a branch on the compiler's own ISA macro outside
// core/cpu_isa.h, which the rules must reject.
#if defined(__AVX512F__)
int lanes() { return 16; }
#else
int lanes() { return 1; }
#endif
