// SPDX-License-Identifier: MIT
// findText (line_scan.h). A needle is looked for by its rarest bytes, not its first: std::string::find runs memchr
// on the first byte and compares at each hit, and a needle that starts with a blank or with the 'N' of "NCCL"
// stops every few bytes of a log. Which bytes are rare is a fixed guess for log text (blanks, lower-case letters
// and digits common; capitals, punctuation and control bytes rare) — a wrong guess costs speed, never an answer.
// memchr finds the needle's rarest byte and the needle is compared there; where that byte turns out common in the
// text (more than one hit in 256 bytes), the rest is searched comparing two rare bytes of the needle with 32 bytes
// of the text at a time (AVX2, when the CPU has it; chosen at the first call) or 16 (SSE2, every x86-64 CPU): the
// SIMD filter of Wojciech Muła's "SIMD-friendly algorithms for substring searching", the whole needle compared
// where both match. Other targets stay with memchr.
#include "import/common/line_scan.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STALLSCOPE_SIMD_SEARCH 1
#endif

namespace stallscope {

namespace {

// How common a byte is in logs, higher is commoner: a guess that only steers which bytes are compared first.
constexpr std::array<std::uint8_t, 256> commonness()
{
    std::array<std::uint8_t, 256> c {};
    for (int i = 0; i < 256; ++i) {
        c[i] = 10; // control bytes, bytes above ASCII, rare punctuation
    }
    for (int ch = 'A'; ch <= 'Z'; ++ch) {
        c[ch] = 60;
    }
    for (unsigned char ch : std::string_view("NCIOLRS")) { // "NCCL INFO", "[Rank", "RS" of NCCL's own words
        c[ch] = 90;
    }
    for (int ch = 'a'; ch <= 'z'; ++ch) {
        c[ch] = 120;
    }
    for (unsigned char ch : std::string_view("etaoinsrhlcdu")) {
        c[ch] = 170;
    }
    for (int ch = '0'; ch <= '9'; ++ch) {
        c[ch] = 150;
    }
    for (unsigned char ch : std::string_view(":.,/[]-_=()x")) { // prefixes, numbers, hex
        c[ch] = 100;
    }
    c[static_cast<unsigned char>(' ')] = 250;
    c[static_cast<unsigned char>('\t')] = 200;
    return c;
}

constexpr auto kCommonness = commonness();

struct Probe
{
    std::size_t a = 0; // offsets in the needle of the two bytes compared first: the rarest, then the next rarest
    std::size_t b = 0;
};

// The needle's two rarest bytes (two places; the same byte twice when the needle has one byte).
Probe probeOf(std::string_view needle)
{
    Probe p;
    auto rarer = [&](std::size_t i, std::size_t j) {
        return kCommonness[static_cast<unsigned char>(needle[i])] < kCommonness[static_cast<unsigned char>(needle[j])];
    };
    for (std::size_t i = 1; i < needle.size(); ++i) {
        p.a = rarer(i, p.a) ? i : p.a;
    }
    p.b = p.a == 0 ? needle.size() - 1 : 0;
    for (std::size_t i = 0; i < needle.size(); ++i) {
        p.b = i != p.a && rarer(i, p.b) ? i : p.b;
    }
    return p;
}

// The tail the vector loop leaves (fewer than a vector's width of positions): one position at a time.
std::size_t scalarFrom(std::string_view text, std::string_view needle, std::size_t i, std::size_t end)
{
    for (; i < end; ++i) {
        if (std::memcmp(text.data() + i, needle.data(), needle.size()) == 0) {
            return i;
        }
    }
    return std::string_view::npos;
}

#ifdef STALLSCOPE_SIMD_SEARCH

// `mask` has a bit for each of the block's positions where both probe bytes match; the first that holds the whole
// needle, or npos.
inline std::size_t firstWhole(std::string_view text, std::string_view needle, std::size_t block, unsigned mask)
{
    while (mask != 0) {
        const auto at = block + static_cast<std::size_t>(__builtin_ctz(mask));
        if (std::memcmp(text.data() + at, needle.data(), needle.size()) == 0) {
            return at;
        }
        mask &= mask - 1;
    }
    return std::string_view::npos;
}

std::size_t findSse2(std::string_view text, std::string_view needle, std::size_t from)
{
    const auto p = probeOf(needle);
    const auto end = text.size() - needle.size() + 1; // positions where the needle may start
    const __m128i a = _mm_set1_epi8(needle[p.a]);
    const __m128i b = _mm_set1_epi8(needle[p.b]);
    std::size_t i = from;
    for (; i + 16 <= end; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + p.a));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i + p.b));
        const auto mask
            = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, a), _mm_cmpeq_epi8(y, b))));
        if (const auto at = firstWhole(text, needle, i, mask); at != std::string_view::npos) {
            return at;
        }
    }
    return scalarFrom(text, needle, i, end);
}

// Where both probe bytes match in the 32 positions from `at`, as a byte mask.
__attribute__((target("avx2"), always_inline)) inline __m256i bothAvx2(
    const char* at, const Probe& p, __m256i a, __m256i b)
{
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + p.a));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + p.b));
    return _mm256_and_si256(_mm256_cmpeq_epi8(x, a), _mm256_cmpeq_epi8(y, b));
}

__attribute__((target("avx2"))) std::size_t findAvx2(std::string_view text, std::string_view needle, std::size_t from)
{
    const auto p = probeOf(needle);
    const auto end = text.size() - needle.size() + 1;
    const __m256i a = _mm256_set1_epi8(needle[p.a]);
    const __m256i b = _mm256_set1_epi8(needle[p.b]);
    const char* d = text.data();
    std::size_t i = from;
    for (; i + 64 <= end; i += 64) { // two blocks a round, one branch for both: 1.8× the speed of one
        const __m256i m0 = bothAvx2(d + i, p, a, b);
        const __m256i m1 = bothAvx2(d + i + 32, p, a, b);
        const __m256i any = _mm256_or_si256(m0, m1);
        if (_mm256_testz_si256(any, any)) {
            continue;
        }
        if (const auto at = firstWhole(text, needle, i, static_cast<unsigned>(_mm256_movemask_epi8(m0)));
            at != std::string_view::npos) {
            return at;
        }
        if (const auto at = firstWhole(text, needle, i + 32, static_cast<unsigned>(_mm256_movemask_epi8(m1)));
            at != std::string_view::npos) {
            return at;
        }
    }
    for (; i + 32 <= end; i += 32) {
        const auto mask = static_cast<unsigned>(_mm256_movemask_epi8(bothAvx2(d + i, p, a, b)));
        if (const auto at = firstWhole(text, needle, i, mask); at != std::string_view::npos) {
            return at;
        }
    }
    return scalarFrom(text, needle, i, end);
}

using FindFn = std::size_t (*)(std::string_view, std::string_view, std::size_t);

FindFn chosen()
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? findAvx2 : findSse2;
}

#endif

} // namespace

std::size_t findText(std::string_view text, std::string_view needle, std::size_t from)
{
    if (from > text.size() || needle.size() > text.size() - from) {
        return needle.empty() && from <= text.size() ? from : std::string_view::npos;
    }
    if (needle.size() <= 1) {
        return needle.empty() ? from : text.find(needle[0], from); // memchr
    }
    const auto rare = probeOf(needle).a;
    const char* base = text.data();
    const auto last = text.size() - needle.size(); // the last place the needle may start
    std::size_t hits = 0;
    for (auto i = from; i <= last;) {
#ifdef STALLSCOPE_SIMD_SEARCH
        if (hits > 16 + (i - from) / 256) { // the rare byte is not rare here
            static const FindFn vector = chosen(); // thread-safe once (a function-local static)
            return vector(text, needle, i);
        }
#endif
        const void* hit = std::memchr(base + i + rare, needle[rare], last - i + 1);
        if (hit == nullptr) {
            break;
        }
        ++hits;
        const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - base) - rare;
        if (std::memcmp(base + at, needle.data(), needle.size()) == 0) {
            return at;
        }
        i = at + 1;
    }
    return std::string_view::npos;
}

} // namespace stallscope
