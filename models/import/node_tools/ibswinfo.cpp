// SPDX-License-Identifier: MIT
// ibswinfo (github.com/stanford-rc/ibswinfo, ibswinfo.sh; docs/formats.md §5f), an unmanaged switch's vitals read
// through MFT's registers. Every line is printf "%-18s %s %s": key, then '|' (the default table) or ':' (the
// targeted -o outputs), then value; empty values are not printed.
//   default:   =====… / " <node description>" / =====…, "PSU0 status        | OK" with its indented
//              "P/N", "S/N", "DC power", "fan status", "power (W)", then "temperature (C)    | 34",
//              "max temp (C)       | 41", "warn threshold (C) | 95/105 (low/high)", "fan status         | OK",
//              "fan#1 (rpm)        | 5426"
//   -o vitals: "uptime (sec)       : 16982312", "psu0.power (W)     : 92", "cur.temp (C)       : 73",
//              "max.temp (C)       : 80", "module#01.temp (C) : 44" (older releases "QSFP#01.temp (C)"),
//              "fan#1.speed (rpm)  : 6355"
//   -o status: "psu0.status        : OK", "psu0.dc", "psu0.fan", "fans               : ERROR"
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && s.front() == ' ') {
        s.remove_prefix(1);
    }
    while (!s.empty() && s.back() == ' ') {
        s.remove_suffix(1);
    }
    return s;
}

bool allOf(std::string_view line, char ch)
{
    return line.size() >= 10 && line.find_first_not_of(ch) == std::string_view::npos;
}

SwitchVitals& openSwitch(Cursor& c, Sink& s, std::int64_t lineNo)
{
    s.openDevice(c, "ibswinfo", "");
    SwitchVitals v;
    v.name = s.host;
    v.file = s.file;
    v.line = lineNo;
    c.sw = s.out.switches.size();
    s.out.switches.push_back(std::move(v));
    return s.out.switches.back();
}

// The keys that start a targeted list outside any block: what -o vitals and -o status print first.
bool startsList(std::string_view key)
{
    return key == "uptime (sec)" || key == "cur.temp (C)" || key == "fans"
        || (key.starts_with("psu") && key.find('.') != std::string_view::npos);
}

bool hasStatus(const SwitchVitals& v, std::string_view part)
{
    for (const auto& st : v.statuses) {
        if (st.part == part) {
            return true;
        }
    }
    return false;
}

// "psu0.status" → "PSU0", "psu0.dc" → "PSU0 DC power", "psu0.fan" → "PSU0 fan"; "" for another key.
std::string listStatusPart(std::string_view key)
{
    const auto dot = key.find('.');
    if (!key.starts_with("psu") || dot == std::string_view::npos) {
        return {};
    }
    const auto psu = "PSU" + std::string(key.substr(3, dot - 3));
    const auto what = key.substr(dot + 1);
    if (what == "status") {
        return psu;
    }
    if (what == "dc") {
        return psu + " DC power";
    }
    if (what == "fan") {
        return psu + " fan";
    }
    return {};
}

} // namespace

bool ibswinfoLine(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    if (allOf(line, '=')) {
        if (c.tool == "ibswinfo" && c.swStage == 2) {
            c.swStage = 0; // the separator under the name
            return true;
        }
        openSwitch(c, s, lineNo);
        c.swStage = 1;
        return true;
    }
    if (c.tool == "ibswinfo" && c.swStage == 1 && c.sw) {
        s.out.switches[*c.sw].name = std::string(line.substr(0, 64));
        c.swStage = 2;
        return true;
    }
    const bool table = line.find(" | ") != std::string_view::npos;
    const auto sep = table ? line.find(" | ") : line.find(" : ");
    if (sep == std::string_view::npos) {
        return false;
    }
    const auto key = trimmed(line.substr(0, sep));
    const auto value = trimmed(line.substr(sep + 3));
    if (c.tool != "ibswinfo" || !c.sw) {
        if (table || !startsList(key)) {
            return false;
        }
        openSwitch(c, s, lineNo);
    } else if (!table
        && (key == "uptime (sec)"
            || (!listStatusPart(key).empty() && hasStatus(s.out.switches[*c.sw], listStatusPart(key))))) {
        openSwitch(c, s, lineNo); // the next switch's list, back to back
    }
    auto& v = s.out.switches[*c.sw];
    const auto number = [&](std::optional<int>& into) {
        if (const auto n = parseNumber<int>(value)) {
            into = n;
        } else {
            s.out.warnings.push_back(LoadIssue {
                s.file, lineNo, -1, "ibswinfo value cut or damaged, not read: " + std::string(line.substr(0, 200)) });
        }
    };
    const auto status = [&](std::string part) {
        v.statuses.push_back({ std::move(part), std::string(value.substr(0, 32)), lineNo });
    };
    // The PSU's indented lines (indentation may be stripped) follow its status line.
    const bool psuLine = key == "P/N" || key == "S/N" || key == "DC power" || key == "fan status" || key == "power (W)";
    if (!psuLine) {
        c.psu.clear();
    }
    if (key.starts_with("PSU") && key.ends_with(" status")) {
        c.psu = std::string(key.substr(0, key.size() - 7));
        status(c.psu);
    } else if (psuLine && !c.psu.empty()) {
        if (key == "DC power") {
            status(c.psu + " DC power");
        } else if (key == "fan status") {
            status(c.psu + " fan");
        }
    } else if (key == "fan status" || key == "fans") {
        status("fans");
    } else if (const auto part = listStatusPart(key); !part.empty()) {
        status(part);
    } else if (key == "temperature (C)" || key == "cur.temp (C)") {
        number(v.temperature);
    } else if (key == "max temp (C)" || key == "max.temp (C)") {
        number(v.maxTemperature);
    } else if (key == "warn threshold (C)") {
        // "95/105 (low/high)"
        const auto slash = value.find('/');
        const auto low = parseNumber<int>(value.substr(0, slash));
        const auto high = slash == std::string_view::npos
            ? std::nullopt
            : parseNumber<int>(value.substr(slash + 1, value.find(' ') - slash - 1));
        if (low && high) {
            v.warnLow = low;
            v.warnHigh = high;
        } else {
            s.out.warnings.push_back(LoadIssue {
                s.file, lineNo, -1, "ibswinfo value cut or damaged, not read: " + std::string(line.substr(0, 200)) });
        }
    } else if (key.starts_with("fan#") || key.starts_with("module#") || key.starts_with("QSFP#")) {
        // "fan#1 (rpm)", "fan#1.speed (rpm)", "module#01 (C)", "module#01.temp (C)", "QSFP#01.temp (C)"
        const auto end = std::min(key.find(' '), key.find('.'));
        std::optional<int> n;
        number(n);
        if (n) {
            auto& into = key.starts_with("fan#") ? v.fanRpm : v.moduleTemps;
            into.emplace_back(std::string(key.substr(0, std::min<std::size_t>(end, 32))), *n);
        }
    }
    return true; // the rest (part number, serial, uptime, PSU power, …) are read past
}

} // namespace stallscope::node_tools
