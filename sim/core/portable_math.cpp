// Compiled with -ffp-contract=off (the top-level CMakeLists.txt): every product below is
// rounded before it is added, as the exact-product tricks require and as every CPU then agrees.

#include "sim/core/portable_math.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace trainsim::portable {

namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();
constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// ln 2 in two parts: the first to 32 bits, so that k * k_ln2_hi is exact for |k| < 2^21; the
// second the rest, rounded (together ~85 bits). 1 / ln 2 and pi likewise, from 60-digit
// decimal values (Python's decimal module: Decimal(2).ln(), Machin's formula for pi).
constexpr double k_ln2_hi = 0x1.62e42fee00000p-1;
constexpr double k_ln2_lo = 0x1.a39ef35793c76p-33;
constexpr double k_inv_ln2 = 0x1.71547652b82fep+0;
constexpr double k_inv_ln2_lo = 0x1.777d0ffda0d24p-56;
constexpr double k_pi_hi = 0x1.921fb54442d18p+1;
constexpr double k_pi_lo = 0x1.1a62633145c07p-53;
constexpr double k_half_log_2pi = 0x1.d67f1c864beb5p-1;  // ln(2 pi) / 2
constexpr double k_sqrt2 = 0x1.6a09e667f3bcdp+0;
// e^x overflows above ln(DBL_MAX) and is below half the least subnormal under this.
constexpr double k_exp_overflow = 709.782712893384;
constexpr double k_exp_underflow = -745.1332191019412;
constexpr std::uint64_t k_mantissa_mask = (std::uint64_t{1} << 52) - 1;

// A value as an unevaluated sum hi + lo with |lo| <= ulp(hi) / 2.
struct DoubleDouble {
  double hi;
  double lo;
};

// Knuth's two-sum: a + b = s + e exactly.
DoubleDouble two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// Dekker's fast two-sum, for |a| >= |b| (or a = 0).
DoubleDouble fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

// Veltkamp's split into two 26-bit halves (|a| < 2^995).
DoubleDouble split(double a) {
  constexpr double k_splitter = 134217729.0;  // 2^27 + 1
  const double t = k_splitter * a;
  const double hi = t - (t - a);
  return {hi, a - hi};
}

// Dekker's exact product: a * b = p + e exactly, without a fused multiply-add.
DoubleDouble two_prod(double a, double b) {
  const double p = a * b;
  const DoubleDouble as = split(a), bs = split(b);
  return {p, ((as.hi * bs.hi - p) + as.hi * bs.lo + as.lo * bs.hi) + as.lo * bs.lo};
}

// 2^k for a normal exponent, -1022 <= k <= 1023.
double power_of_two(int k) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

// 1 / n!, rounded once each (n! is exact in a double up to 22!).
constexpr std::array<double, 23> k_inverse_factorial = [] {
  std::array<double, 23> c{};
  double f = 1;
  for (int n = 0; n < 23; ++n) {
    if (n > 0) f *= n;
    c[static_cast<std::size_t>(n)] = 1.0 / f;
  }
  return c;
}();

// e^(x + tail), |tail| tiny against |x|.
double exp_with_tail(double x, double tail) {
  if (x != x) return x;
  if (x > k_exp_overflow) return k_inf;
  if (x < k_exp_underflow) return 0.0;
  // x = k ln 2 + r, |r| <= ln 2 / 2 (Cody and Waite).
  const double kd = std::floor(x * k_inv_ln2 + 0.5);
  const int k = static_cast<int>(kd);
  const double r = (x - kd * k_ln2_hi) + (tail - kd * k_ln2_lo);
  // e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 14!)): truncation below 2^-57 of the result.
  double q = k_inverse_factorial[14];
  for (int n = 13; n >= 2; --n) q = q * r + k_inverse_factorial[static_cast<std::size_t>(n)];
  const double y = 1.0 + (r + r * r * q);
  if (k > 1023) return y * 2.0 * power_of_two(k - 1);
  if (k < -1021) return y * power_of_two(k + 54) * 0x1p-54;  // a subnormal result
  return y * power_of_two(k);
}

// ln x as a double-double, for finite x > 0: relative error about 2^-80.
DoubleDouble log_double_double(double x) {
  int e = 0;
  std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  if ((bits >> 52) == 0) {  // subnormal: scale into the normal range first
    x *= 0x1p54;
    bits = std::bit_cast<std::uint64_t>(x);
    e = -54;
  }
  e += static_cast<int>(bits >> 52) - 1023;
  double m = std::bit_cast<double>((bits & k_mantissa_mask) | (std::uint64_t{1023} << 52));  // [1, 2)
  if (m > k_sqrt2) {
    m *= 0.5;
    ++e;
  }
  // ln m = 2 atanh(s), s = f / (2 + f), f = m - 1 (exact: m in [0.70, 1.42]); |s| <= 0.172.
  const double f = m - 1.0;
  const DoubleDouble d = fast_two_sum(2.0, f);  // 2 + f, exactly
  const double s = f / d.hi;
  const DoubleDouble sd = two_prod(s, d.hi);
  const double s_lo = (((f - sd.hi) - sd.lo) - s * d.lo) / d.hi;  // s + s_lo = f / (2 + f)
  // 2 atanh(s) - 2s = 2 s (t/3 + t^2/5 + ... + t^12/25), t = s^2 <= 0.0295: truncation < 2^-66.
  const double t = s * s;
  double q = 1.0 / 25;
  for (int n = 23; n >= 3; n -= 2) q = q * t + 1.0 / n;
  const DoubleDouble log_m = fast_two_sum(2.0 * s, 2.0 * s_lo + 2.0 * s * t * q);
  const double ed = e;
  const DoubleDouble high = two_sum(ed * k_ln2_hi, log_m.hi);
  return fast_two_sum(high.hi, high.lo + (log_m.lo + ed * k_ln2_lo));
}

// cos(pi u) for |u| <= 1/4 (Taylor to (pi u)^20 / 20!: truncation below 2^-67).
double cos_pi_reduced(double u) {
  const double t = k_pi_hi * u + k_pi_lo * u;
  const double z = t * t;
  double q = k_inverse_factorial[20];
  for (int n = 18; n >= 2; n -= 2)
    q = q * z + (n % 4 == 0 ? 1.0 : -1.0) * k_inverse_factorial[static_cast<std::size_t>(n)];
  return 1.0 + z * q;
}

// sin(pi v) for |v| <= 1/4 (Taylor to (pi v)^21 / 21!), pi v carried as a double-double.
double sin_pi_reduced(double v) {
  const DoubleDouble t = two_prod(k_pi_hi, v);
  const double t_lo = t.lo + k_pi_lo * v;
  const double z = t.hi * t.hi;
  double q = k_inverse_factorial[21];
  for (int n = 19; n >= 3; n -= 2)
    q = q * z + (n % 4 == 1 ? 1.0 : -1.0) * k_inverse_factorial[static_cast<std::size_t>(n)];
  return t.hi + (t_lo + t.hi * z * q);
}

bool is_odd_integer(double y) {
  return std::fabs(y) < 0x1p53 && std::floor(y) == y && std::floor(y * 0.5) * 2.0 != y;
}

}  // namespace

double exp(double x) {
  return exp_with_tail(x, 0.0);
}

float exp(float x) {
  return static_cast<float>(exp_with_tail(static_cast<double>(x), 0.0));
}

double log(double x) {
  if (x != x || x == k_inf) return x;
  if (x < 0) return k_nan;
  if (x == 0) return -k_inf;
  return log_double_double(x).hi;
}

double log1p(double x) {
  // Goldberg's rule (Theorem 4 of "What every computer scientist should know about
  // floating-point arithmetic", 1991): ln(u) * x / (u - 1), u = 1 + x rounded.
  if (x != x || x == k_inf) return x;
  if (x < -1) return k_nan;
  if (x == -1) return -k_inf;
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  return log(u) * (x / (u - 1.0));
}

double log2(double x) {
  if (x != x || x == k_inf) return x;
  if (x < 0) return k_nan;
  if (x == 0) return -k_inf;
  const DoubleDouble l = log_double_double(x);
  const DoubleDouble p = two_prod(l.hi, k_inv_ln2);
  return p.hi + (p.lo + (l.hi * k_inv_ln2_lo + l.lo * k_inv_ln2));
}

double pow(double x, double y) {
  // C99 Annex F.9.4.4's special cases.
  if (y == 0 || x == 1) return 1.0;
  if (x != x || y != y) return x + y;
  const bool odd = is_odd_integer(y);
  if (std::isinf(y)) {
    const double ax = std::fabs(x);
    if (ax == 1) return 1.0;
    return (ax < 1) == (y < 0) ? k_inf : 0.0;
  }
  if (x == 0 || std::isinf(x)) {
    const bool huge = (x == 0) == (y < 0);  // 0^negative and inf^positive
    const double magnitude = huge ? k_inf : 0.0;
    return odd && std::signbit(x) ? -magnitude : magnitude;
  }
  double sign = 1.0;
  if (x < 0) {
    if (std::floor(y) != y) return k_nan;
    if (odd) sign = -1.0;
    x = -x;
  }
  // x^y = e^(y ln x), y ln x carried as a double-double: the result keeps its accuracy for
  // large |y ln x| and is exact where the exact result is a representable power.
  const DoubleDouble l = log_double_double(x);
  const double estimate = y * l.hi;
  if (estimate > k_exp_overflow + 1) return sign * k_inf;
  if (estimate < k_exp_underflow - 1) return sign * 0.0;
  const DoubleDouble p = two_prod(y, l.hi);
  return sign * exp_with_tail(p.hi, p.lo + y * l.lo);
}

double cos_pi(double x) {
  if (!std::isfinite(x)) return k_nan;
  x = std::fabs(x);
  if (x >= 0x1p53) return 1.0;     // an even integer
  x -= 2.0 * std::floor(x * 0.5);  // [0, 2), exact
  if (x > 1.0) x = 2.0 - x;        // cos(pi (2 - x)) = cos(pi x); [0, 1]
  double sign = 1.0;
  if (x > 0.5) {  // cos(pi x) = -cos(pi (1 - x)); [0, 1/2]
    x = 1.0 - x;
    sign = -1.0;
  }
  if (x <= 0.25) return sign * cos_pi_reduced(x);
  return sign * sin_pi_reduced(0.5 - x);  // cos(pi x) = sin(pi (1/2 - x))
}

double tgamma(double x) {
  if (!(x > 0)) return k_nan;
  if (x > 171.7) return k_inf;
  if (x <= 23 && std::floor(x) == x) {  // (x - 1)!, exact in a double up to 22!
    double f = 1;
    for (double n = 2; n < x; n += 1) f *= n;
    return f;
  }
  // Gamma(x) = Gamma(z) / (x (x + 1) ... (z - 1)) with z >= 10, then Stirling's series for
  // ln Gamma(z) to the z^-13 term (A&S 6.1.40; the next term is below 3e-17 at z = 10).
  double shift = 1.0, z = x;
  for (; z < 10; z += 1) shift *= z;
  const double w = 1.0 / z, w2 = w * w;
  const double series =
      w * (1.0 / 12 +
           w2 * (-1.0 / 360 +
                 w2 * (1.0 / 1260 + w2 * (-1.0 / 1680 + w2 * (1.0 / 1188 + w2 * (-691.0 / 360360 + w2 / 156))))));
  const double log_gamma = (z - 0.5) * log(z) - z + k_half_log_2pi + series;
  return exp(log_gamma) / shift;
}

}  // namespace trainsim::portable
