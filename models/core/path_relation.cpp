// SPDX-License-Identifier: MIT
#include "core/path_relation.h"

#include <filesystem>
#include <iterator>

namespace stallscope {

namespace {

// True when `inner` is `outer` or lies inside it (both canonical).
bool within(const std::filesystem::path& inner, const std::filesystem::path& outer)
{
    auto o = outer.begin();
    auto i = inner.begin();
    for (; o != outer.end() && i != inner.end() && *o == *i; ++o, ++i) { }
    return o == outer.end() || (std::next(o) == outer.end() && o->empty()); // a trailing "/" is no part
}

} // namespace

PathRelation pathRelation(const std::string& input, const std::string& out)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (input.empty() || out.empty() || !fs::exists(input, ec)) {
        return PathRelation::Apart;
    }
    const auto in = fs::weakly_canonical(input, ec);
    const auto to = ec ? fs::path() : fs::weakly_canonical(out, ec);
    if (ec || in.empty() || to.empty()) {
        return PathRelation::Apart;
    }
    const bool inside = within(to, in);
    const bool holds = within(in, to);
    return inside && holds ? PathRelation::Same
        : inside           ? PathRelation::Inside
        : holds            ? PathRelation::Holds
                           : PathRelation::Apart;
}

} // namespace stallscope
