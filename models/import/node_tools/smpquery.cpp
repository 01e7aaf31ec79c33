// SPDX-License-Identifier: MIT
// smpquery portinfo <lid> <port> (also `smpquery pi`; rdma-core infiniband-diags/smpquery.c, the fields as
// libibmad's dump prints them; docs/formats.md §5f):
//   # Port info: Lid 12 port 1
//   Lid:.............................12
//   SMLid:...........................1
//   LinkWidthActive:.................4X
//   LinkState:.......................Active
//   PhysLinkState:...................LinkUp
//   LinkSpeedActive:.................10.0 Gbps
//   LinkSpeedExtActive:..............53.125 Gbps
// The port is the queried LID's: its host is the one the file or a prompt names, else "lid 12".
#include "import/node_tools/tool_block.h"

#include "core/parse_number.h"

namespace stallscope::node_tools {

namespace {

// A lane speed as PortInfo prints it → its speed name: "2.5 Gbps" SDR … "10.0 Gbps" QDR (LinkSpeedActive),
// "14.0625 Gbps" FDR … "212.5 Gbps" XDR (LinkSpeedExtActive); "" for "No Extended Speed", "0" or unknown.
std::string_view speedName(std::string_view value)
{
    static constexpr std::pair<std::string_view, std::string_view> kSpeeds[]
        = { { "2.5 Gbps", "SDR" }, { "5.0 Gbps", "DDR" }, { "10.0 Gbps", "QDR" }, { "14.0625 Gbps", "FDR" },
              { "25.78125 Gbps", "EDR" }, { "53.125 Gbps", "HDR" }, { "106.25 Gbps", "NDR" }, { "212.5 Gbps", "XDR" } };
    for (const auto& [text, name] : kSpeeds) {
        if (value == text) {
            return name;
        }
    }
    return {};
}

// LinkState's words: "Down", "Initialize", "Armed", "Active" (and "NoChange").
std::optional<PortState> linkState(std::string_view value)
{
    if (value == "Initialize") {
        return PortState::Init;
    }
    return parsePortState(value);
}

// PhysLinkState's "PortConfigurationTraining" and "LinkErrorRecovery" besides the common words.
std::optional<PhysState> physState(std::string_view value)
{
    if (value == "PortConfigurationTraining") {
        return PhysState::Training;
    }
    if (value == "LinkErrorRecovery") {
        return PhysState::ErrorRecovery;
    }
    return parsePhysState(value);
}

void updateRate(HostPort& p, std::string_view speed, std::string_view extSpeed)
{
    const auto lane = extSpeed.empty() ? speed : extSpeed;
    if (!lane.empty()) {
        p.rate.speed = std::string(lane);
    }
    if (p.rate.width > 0 && !p.rate.speed.empty()) {
        p.rate.gbps = laneDataOf(p.rate.speed) * p.rate.width;
    }
}

void warn(Sink& s, std::int64_t lineNo, std::string_view line)
{
    s.out.warnings.push_back(LoadIssue {
        s.file, lineNo, -1, "smpquery field cut or damaged, not read: " + std::string(line.substr(0, 200)) });
}

} // namespace

bool smpqueryHeader(std::string_view line, Cursor& c, Sink& s, std::int64_t lineNo)
{
    constexpr std::string_view kHeader = "# Port info: ";
    if (line.starts_with("# MLNX ext Port info: ")) {
        // Mellanox's extended PortInfo repeats field names with vendor bitmasks ("LinkSpeedActive:....0x01" is
        // FDR10's bit, not a speed): the port's block ends here, and its fields are read past.
        c.port.reset();
        return true;
    }
    if (!line.starts_with(kHeader)) {
        return false;
    }
    auto rest = line.substr(kHeader.size());
    const auto portAt = rest.rfind(" port ");
    if (portAt == std::string_view::npos) {
        return false;
    }
    const auto port = parseNumber<std::uint16_t>(rest.substr(portAt + 6));
    if (!port) {
        warn(s, lineNo, line);
        return true;
    }
    std::optional<std::uint32_t> lid;
    if (rest.starts_with("Lid ")) {
        lid = parseLidText(rest.substr(4, portAt - 4));
    }
    const auto name = lid ? "lid " + std::to_string(*lid) : std::string(rest.substr(0, portAt));
    s.openDevice(c, "smpquery", name);
    auto& p = s.openPort(c, *port, lineNo);
    if (p.host.empty()) {
        p.host = name;
    }
    p.lid = lid;
    p.linkLayer = "InfiniBand";
    p.evidence = std::string(line.substr(0, 200));
    return true;
}

bool smpqueryField(std::string_view key, std::string_view value, Cursor& c, Sink& s, std::int64_t lineNo)
{
    auto* p = s.current(c);
    if (!p) {
        return false;
    }
    // The dots that pad the key: "LinkState:.......................Active".
    const auto start = value.find_first_not_of('.');
    value = start == std::string_view::npos ? std::string_view {} : value.substr(start);
    const auto cut = [&] {
        warn(s, lineNo, std::string(key) + ":" + std::string(value));
        return true;
    };
    if (key == "Lid") {
        const auto lid = parseLidText(value);
        if (!lid) {
            return cut();
        }
        p->lid = lid;
    } else if (key == "SMLid") {
        const auto lid = parseLidText(value);
        if (!lid) {
            return cut();
        }
        p->smLid = lid;
    } else if (key == "LinkState") {
        const auto st = linkState(value);
        if (!st) {
            return cut();
        }
        p->state = *st;
        p->line = lineNo;
        p->evidence = "LinkState: " + std::string(value.substr(0, 40));
    } else if (key == "PhysLinkState") {
        const auto ph = physState(value);
        if (!ph) {
            return cut();
        }
        p->phys = *ph;
    } else if (key == "LinkWidthActive") {
        if (!value.ends_with("X")) {
            return cut();
        }
        const auto w = parseNumber<int>(value.substr(0, value.size() - 1));
        if (!w || *w <= 0 || *w > 12) {
            return cut();
        }
        p->rate.width = *w;
        updateRate(*p, {}, {});
    } else if (key == "LinkSpeedActive") {
        const auto name = speedName(value);
        if (name.empty()) {
            return cut();
        }
        if (p->rate.speed.empty() || p->rate.speed == "SDR" || p->rate.speed == "DDR" || p->rate.speed == "QDR") {
            updateRate(*p, name, {}); // an extended speed, when active, overrides
        }
    } else if (key == "LinkSpeedExtActive") {
        // "No Extended Speed" or "0" when none is active: LinkSpeedActive stands.
        updateRate(*p, {}, speedName(value));
    }
    return true; // PortInfo has many more fields (Mkey, CapMask, VLCap, …), all read past
}

} // namespace stallscope::node_tools
