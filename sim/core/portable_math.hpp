#pragma once
// Elementary functions whose results depend on their arguments only, never on the CPU.
//
// Why: glibc's libm picks an implementation of exp, log, pow, sin, cos, expf ... when it is
// loaded, by the CPU it finds (FMA and AVX2 variants beside the SSE2 ones), and the variants
// differ in the last bit now and then. The same trainsim build then printed different numbers
// on different x86-64 machines (the drill's divergences in the seventh digit). These functions
// use only IEEE-754 additions, multiplications, divisions and square roots, which every x86-64
// CPU rounds alike, in a fixed order (the file is compiled with -ffp-contract=off, so no
// multiply-add is fused either). Accuracy: within a few units in the last place of the exact
// result (tests/core/portable_math_test.cpp checks them against libm over wide ranges), and
// exact where the exact result is representable and simple: exp(0), log(1), pow(2, k),
// pow(10, k), log2(2^k), cos_pi(k / 2).
//
// Methods (textbook, written for this file): Cody and Waite's additive range reduction by
// ln 2 (Cody & Waite, "Software Manual for the Elementary Functions", 1980); log by the
// atanh series of s = f / (2 + f) (Abramowitz & Stegun 4.1.28); Dekker's exact products and
// Knuth's exact sums for the double-double intermediate of pow (Dekker, "A floating-point
// technique for extending the available precision", Numer. Math. 18, 1971); Taylor series on
// reduced arguments; Stirling's series for ln Gamma (A&S 6.1.40) after the recurrence
// Gamma(x + 1) = x Gamma(x). tests/cli/emulated_cpu_test.cpp proves the outcome: the same
// binary prints the same numbers under emulated CPUs without FMA or AVX.

namespace trainsim::portable {

/// e^x. +inf above ~709.78, 0 below ~-745.13, NaN for NaN.
double exp(double x);
/// e^x for floats: the double result rounded to float.
float exp(float x);
/// Natural logarithm: NaN for x < 0, -inf for 0.
double log(double x);
/// log(1 + x), accurate for small x.
double log1p(double x);
/// Base-2 logarithm; exact at powers of two.
double log2(double x);
/// x^y with C99's special cases (pow(x, 0) = 1, pow(1, y) = 1, negative x with an integer y).
double pow(double x, double y);
/// cos(pi x), with pi x never rounded: cos_pi(0.5) is exactly 0, cos_pi(1) exactly -1.
double cos_pi(double x);
/// The Gamma function for x > 0 (NaN otherwise; +inf past ~171.6).
double tgamma(double x);

}  // namespace trainsim::portable
