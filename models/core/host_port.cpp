// SPDX-License-Identifier: MIT
#include "core/host_port.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace stallscope {

namespace {

// "PORT_ACTIVE (4)" → name "ACTIVE", number 4; "4: ACTIVE" → "ACTIVE", 4; "Physical state: LinkUp" is not
// passed here (the caller splits the key). Letters upper-cased and joined (spaces, '_' and '-' dropped).
struct Spelling
{
    std::string name;
    int number = -1;
};

Spelling spell(std::string_view text)
{
    Spelling s;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isalpha(c)) {
            s.name += static_cast<char>(std::toupper(c));
        } else if (std::isdigit(c) && s.number < 0) {
            int v = 0;
            const auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
            if (ec == std::errc {} && v < 100) {
                s.number = v;
            }
            i = static_cast<std::size_t>(p - text.data()) - 1;
        }
    }
    if (s.name.rfind("PORT", 0) == 0 && s.name != "PORTCONFIGURATIONTRAINING"
        && s.name != "PORTCONFIGURATIONTRAINNING") {
        s.name = s.name.substr(4); // ibv_devinfo's PORT_ACTIVE
    }
    return s;
}

} // namespace

std::optional<PortState> parsePortState(std::string_view text)
{
    const auto s = spell(text);
    static constexpr std::array<std::pair<std::string_view, PortState>, 7> kNames = { {
        { "DOWN", PortState::Down },
        { "INIT", PortState::Init },
        { "INITIALIZING", PortState::Init },
        { "INITIALIZE", PortState::Init },
        { "ARMED", PortState::Armed },
        { "ACTIVE", PortState::Active },
        { "ACTIVEDEFER", PortState::ActiveDefer },
    } };
    for (const auto& [name, state] : kNames) {
        if (s.name == name) {
            return state;
        }
    }
    if (s.name.empty() && s.number >= 1 && s.number <= 5) {
        return static_cast<PortState>(s.number);
    }
    return std::nullopt;
}

std::optional<PhysState> parsePhysState(std::string_view text)
{
    const auto s = spell(text);
    static constexpr std::array<std::pair<std::string_view, PhysState>, 12> kNames = { {
        { "SLEEP", PhysState::Sleep },
        { "POLLING", PhysState::Polling },
        { "DISABLED", PhysState::Disabled },
        { "PORTCONFIGURATIONTRAINING", PhysState::Training },
        { "PORTCONFIGURATIONTRAINNING", PhysState::Training }, // ibv_devinfo's spelling
        { "LINKUP", PhysState::LinkUp },
        { "LINKERRORRECOVERY", PhysState::ErrorRecovery },
        { "LINKERRORRECOVER", PhysState::ErrorRecovery }, // rdma link's spelling
        { "PHYTEST", PhysState::PhyTest },
        { "NOSTATECHANGE", PhysState::Unknown },
        { "NOP", PhysState::Unknown },
        { "ARMED", PhysState::Training }, // rdma link prints physical state 4 so (iproute2 rdma/link.c, sic)
    } };
    for (const auto& [name, state] : kNames) {
        if (s.name == name) {
            return state;
        }
    }
    if (s.name.empty() && s.number >= 0 && s.number <= 7) {
        return static_cast<PhysState>(s.number);
    }
    return std::nullopt;
}

std::string_view toString(PortState s)
{
    switch (s) {
    case PortState::Down:
        return "Down";
    case PortState::Init:
        return "Initializing";
    case PortState::Armed:
        return "Armed";
    case PortState::Active:
        return "Active";
    case PortState::ActiveDefer:
        return "ActiveDefer";
    case PortState::Unknown:
        break;
    }
    return "unknown";
}

std::string_view toString(PhysState s)
{
    switch (s) {
    case PhysState::Sleep:
        return "Sleep";
    case PhysState::Polling:
        return "Polling";
    case PhysState::Disabled:
        return "Disabled";
    case PhysState::Training:
        return "PortConfigurationTraining";
    case PhysState::LinkUp:
        return "LinkUp";
    case PhysState::ErrorRecovery:
        return "LinkErrorRecovery";
    case PhysState::PhyTest:
        return "PhyTest";
    case PhysState::Unknown:
        break;
    }
    return "unknown";
}

std::optional<PortRate> parsePortRate(std::string_view text)
{
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    PortRate r;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), r.gbps);
    if (ec != std::errc {} || !(r.gbps >= 0) || r.gbps > 1e5) {
        return std::nullopt;
    }
    // "(4X HDR)" or "(FDR10)"
    const auto open = text.find('(');
    const auto close = text.find(')', open == std::string_view::npos ? 0 : open);
    if (open != std::string_view::npos && close != std::string_view::npos) {
        auto inside = text.substr(open + 1, close - open - 1);
        if (const auto x = inside.find('X'); x != std::string_view::npos && x > 0 && x <= 2) {
            std::from_chars(inside.data(), inside.data() + x, r.width);
            inside.remove_prefix(x + 1);
        }
        while (!inside.empty() && inside.front() == ' ') {
            inside.remove_prefix(1);
        }
        r.speed = std::string(inside.substr(0, 8));
    }
    return r;
}

std::string speedOfLaneGbps(double laneGbps)
{
    static constexpr std::array<std::pair<double, std::string_view>, 8> kLanes = { {
        { 2.5, "SDR" },
        { 5.0, "DDR" },
        { 10.0, "QDR" },
        { 14.0, "FDR" },
        { 25.0, "EDR" },
        { 50.0, "HDR" },
        { 100.0, "NDR" },
        { 200.0, "XDR" },
    } };
    for (const auto& [gbps, name] : kLanes) {
        if (std::abs(laneGbps - gbps) < 0.05) {
            return std::string(name);
        }
    }
    return {};
}

} // namespace stallscope
