// SPDX-License-Identifier: MIT
// Slurm hostlist expressions (placement.h), as `scontrol show hostnames` expands them.
#include "import/scheduler/placement.h"

#include "core/parse_number.h"

namespace stallscope {

namespace {

// A DNS name's longest (RFC 1035): past it a list is damaged, and a million such names would be gigabytes.
constexpr std::size_t kLongestHostName = 253;

// The top-level pieces of "a[1-2],b,c[3,5]": commas outside brackets.
std::optional<std::vector<std::string_view>> pieces(std::string_view expr)
{
    std::vector<std::string_view> out;
    int depth = 0;
    std::size_t from = 0;
    for (std::size_t i = 0; i <= expr.size(); ++i) {
        const char c = i < expr.size() ? expr[i] : ',';
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        if (depth < 0 || depth > 1) {
            return std::nullopt;
        }
        if (c == ',' && depth == 0) {
            if (i > from) {
                out.push_back(expr.substr(from, i - from));
            }
            from = i + 1;
        }
    }
    return depth == 0 ? std::optional(out) : std::nullopt;
}

// "301-303,310" → "301", "302", "303", "310" (the width of a range's first bound kept: "08-10" → "08", "09", "10").
bool expandRange(std::string_view inside, std::vector<std::string>& out, std::size_t most)
{
    std::size_t from = 0;
    for (std::size_t i = 0; i <= inside.size(); ++i) {
        if (i < inside.size() && inside[i] != ',') {
            continue;
        }
        const auto item = inside.substr(from, i - from);
        from = i + 1;
        const auto dash = item.find('-');
        const auto lo = parseNumber<std::uint64_t>(item.substr(0, dash));
        const auto hi = dash == std::string_view::npos ? lo : parseNumber<std::uint64_t>(item.substr(dash + 1));
        if (!lo || !hi || *hi < *lo || *hi - *lo >= most || out.size() + (*hi - *lo) >= most) {
            return false;
        }
        const auto width = dash == std::string_view::npos ? item.size() : dash;
        for (std::uint64_t k = 0; k <= *hi - *lo; ++k) { // counted, not `v <= hi`: hi may be 2^64 − 1
            auto s = std::to_string(*lo + k);
            out.push_back(std::string(s.size() < width ? width - s.size() : 0, '0') + s);
        }
    }
    return true;
}

} // namespace

std::optional<std::vector<std::string>> expandHostlist(std::string_view expr, std::size_t most)
{
    const auto parts = pieces(expr);
    if (!parts) {
        return std::nullopt;
    }
    std::vector<std::string> out;
    for (const auto piece : *parts) {
        std::vector<std::string> names { "" };
        std::size_t i = 0;
        while (i < piece.size()) {
            const auto open = piece.find('[', i);
            const auto text = piece.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
            for (auto& n : names) {
                n += text;
            }
            if (names.front().size() > kLongestHostName) {
                return std::nullopt; // a name no host has: never multiplied out
            }
            if (open == std::string_view::npos) {
                break;
            }
            const auto close = piece.find(']', open);
            std::vector<std::string> numbers;
            if (close == std::string_view::npos || !expandRange(piece.substr(open + 1, close - open - 1), numbers, most)
                || names.size() * numbers.size() > most) {
                return std::nullopt;
            }
            std::vector<std::string> next;
            for (const auto& n : names) {
                for (const auto& num : numbers) {
                    if (n.size() + num.size() > kLongestHostName) {
                        return std::nullopt;
                    }
                    next.push_back(n + num);
                }
            }
            names = std::move(next);
            i = close + 1;
        }
        if (out.size() + names.size() > most) {
            return std::nullopt;
        }
        out.insert(out.end(), names.begin(), names.end());
    }
    return out;
}

} // namespace stallscope
