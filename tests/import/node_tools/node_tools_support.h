// SPDX-License-Identifier: MIT
#pragma once

// What the node-tools tests share: a golden file read as the folder reader would (recognised, its host from its
// path), and a finding looked up by kind and port.
#include "analysis/node_findings.h"
#include "import/node_tools/node_tools.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>

namespace stallscope::test {

inline NodeToolsFile readNodeTools(const std::string& name)
{
    const auto path = testDataPath(name).string();
    const auto text = testData(name);
    REQUIRE(looksLikeNodeTools(text));
    auto r = parseNodeTools(path, text, hostOfNodeFile(path));
    INFO((r ? "" : r.error().format()));
    REQUIRE(r.ok());
    return std::move(r.value());
}

inline const NodeFinding* findingOf(
    const std::vector<NodeFinding>& all, const std::string& kind, const std::string& port)
{
    const auto it
        = std::find_if(all.begin(), all.end(), [&](const NodeFinding& f) { return f.kind == kind && f.port == port; });
    return it == all.end() ? nullptr : &*it;
}

} // namespace stallscope::test
