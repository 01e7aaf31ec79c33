// SPDX-License-Identifier: MIT
// sminfo (rdma-core infiniband-diags/sminfo.c; docs/formats.md §5f):
//   sminfo: sm lid 1 sm guid 0x248a070300f1a2b0, activity count 512345 priority 14 state 3 SMINFO_MASTER
//   sminfo: iberror: failed: query                  (no subnet manager answered; "[pid N] main: " may come between)
// The state names are SMINFO_NOTACT, SMINFO_DISCOVER, SMINFO_STANDBY and SMINFO_MASTER (states 0 to 3).
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

namespace {

// The word after `key` in `line` ("" when the key is absent), without a trailing ','.
std::string_view wordAfter(std::string_view line, std::string_view key)
{
    const auto at = line.find(key);
    if (at == std::string_view::npos) {
        return {};
    }
    auto rest = line.substr(at + key.size());
    rest = rest.substr(0, rest.find(' '));
    if (rest.ends_with(",")) {
        rest.remove_suffix(1);
    }
    return rest;
}

void warn(Sink& s, std::int64_t lineNo, std::string_view line)
{
    s.out.warnings.push_back(
        LoadIssue { s.file, lineNo, -1, "sminfo line cut or damaged, not read: " + std::string(line.substr(0, 200)) });
}

} // namespace

bool sminfoLine(std::string_view line, Sink& s, std::int64_t lineNo)
{
    if (!line.starts_with("sminfo: ")) {
        return false;
    }
    SmInfo sm;
    sm.host = s.host;
    sm.file = s.file;
    sm.line = lineNo;
    sm.evidence = std::string(line.substr(0, 300));
    if (line.starts_with("sminfo: iberror: ")) {
        if (line.find("failed") == std::string_view::npos) {
            return false;
        }
        sm.failed = true;
        s.sawTool("sminfo");
        s.out.subnetManagers.push_back(std::move(sm));
        return true;
    }
    if (!line.starts_with("sminfo: sm lid ")) {
        return false;
    }
    s.sawTool("sminfo");
    const auto lid = parseLidText(wordAfter(line, "sm lid "));
    const auto guid = parseGuidText(wordAfter(line, " sm guid "));
    const auto act = parseNumber<std::uint32_t>(wordAfter(line, " activity count "));
    const auto prio = parseNumber<int>(wordAfter(line, " priority "));
    const auto state = parseNumber<int>(wordAfter(line, " state "));
    // The name follows the state's number: "state 3 SMINFO_MASTER".
    const auto stateAt = line.find(" state ");
    std::string_view name;
    if (stateAt != std::string_view::npos) {
        auto rest = line.substr(stateAt + 7);
        const auto space = rest.find(' ');
        name = space == std::string_view::npos ? std::string_view {} : rest.substr(space + 1);
    }
    if (!lid || !guid || !state || *state < 0 || *state > 3 || !name.starts_with("SMINFO_")) {
        warn(s, lineNo, line);
        return true;
    }
    sm.lid = *lid;
    sm.guid = *guid;
    sm.activity = act.value_or(0);
    sm.priority = prio.value_or(0);
    sm.state = *state;
    sm.stateName = std::string(name.substr(0, 32));
    s.out.subnetManagers.push_back(std::move(sm));
    return true;
}

} // namespace stallscope::node_tools
