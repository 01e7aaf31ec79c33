// SPDX-License-Identifier: MIT
#pragma once

// The field walk every simdjson On-Demand reader of bulk JSON uses (profiler traces, NCCL Inspector lines).

#include <simdjson.h>

#include <string_view>

namespace stallscope {

// Calls fn(key, value) for each field of `o` whose key and value read cleanly (On-Demand: key before value).
// Forced inline: the per-event callback out of line cost 3 % on a profiler trace (bench/RESULTS.md, issue #10).
template <typename Fn> [[gnu::always_inline]] inline void forEachField(simdjson::ondemand::object o, Fn&& fn)
{
    for (auto field : o) {
        std::string_view k;
        simdjson::ondemand::value v;
        if (field.unescaped_key().get(k) || field.value().get(v)) {
            continue;
        }
        fn(k, v);
    }
}

} // namespace stallscope
