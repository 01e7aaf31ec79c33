// SPDX-License-Identifier: MIT
#pragma once

// A review session (`.stallscope`, JSON, versioned): which bundle, what was shown (window and zoom history, pinned
// cursor, row orders, colouring, selected incident and ranks, plotted links, find and filter text, dock layout) and
// the reviewer's annotations. What a trainer hands to a new on-call engineer. Saved atomically. Fields added after
// version 1 are optional when read, so every version-1 file still opens.

#include "core/result.h"
#include "core/types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope {

struct LinkRefByPorts
{
    std::uint64_t guidA = 0;
    std::uint16_t portA = 0;
    std::uint64_t guidB = 0;
    std::uint16_t portB = 0;
    friend bool operator==(const LinkRefByPorts&, const LinkRefByPorts&) = default;
};

// A note pinned to a time or a time range, optionally to a rank or a link.
struct Annotation
{
    TimeNs startNs = 0;
    TimeNs endNs = 0; // == startNs for a point in time
    std::optional<std::uint32_t> rank;
    std::optional<LinkRefByPorts> link;
    std::string text;
    friend bool operator==(const Annotation&, const Annotation&) = default;
};

struct ReviewSession
{
    static constexpr int kVersion = 1;
    std::string bundlePath; // absolute, or relative to the session file's folder
    TimeRange window;
    TimeNs cursorNs = kNoTime; // the pinned cursor
    std::vector<TimeRange> back, forward; // the windows of the view history (Alt+Left/Right), oldest first
    std::string rowOrder = "rank"; // rank | host | rail | first-stuck
    std::string metric = "state"; // state | time-in-collectives | lateness
    std::string linkRowOrder = "tier"; // tier | trouble-first
    std::string rankRows = "all"; // all | recorded (only the ranks with collective records)
    int selectedIncident = 0;
    std::vector<std::uint32_t> selectedRanks;
    std::vector<LinkRefByPorts> plottedLinks;
    std::string fabricFind; // the Fabric dock's find text
    std::string linkFilter; // the Links dock's filter text
    std::string layout; // opaque GUI state (base64)
    std::vector<Annotation> annotations;
    friend bool operator==(const ReviewSession&, const ReviewSession&) = default;
};

std::string sessionToJson(const ReviewSession& s);
Result<ReviewSession> parseSession(const std::string& file, const std::string& text);
// Atomic: a failed save leaves the previous file intact. Empty string on success.
std::string saveSession(const std::string& path, const ReviewSession& s);
Result<ReviewSession> loadSession(const std::string& path);
// The bundle path resolved against the session file's folder.
std::string resolveBundlePath(const std::string& sessionPath, const ReviewSession& s);

} // namespace stallscope
