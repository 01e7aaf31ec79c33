// SPDX-License-Identifier: MIT
// An incident's host evidence and Slurm's dead-rank story, from the snapshot's notes (analysis.h Incident).
#include "analysis/internal.h"
#include "analysis/node_findings.h"

#include "core/time_format.h"

#include <algorithm>
#include <limits>
#include <set>

namespace stallscope::analysis {

namespace {

constexpr TimeNs kNoteSlackNs = 5 * 60 * kNsPerSec; // notes this long before or after an incident belong to it
constexpr std::int64_t kSigAbrt = 6;

bool isTaskFate(const JobSnapshot& snap, const HostNote& n)
{
    return snap.str(n.source) == "slurm" && n.rank != kNoRank
        && (snap.str(n.kind) == "killed by signal" || snap.str(n.kind) == "exited");
}

// torchrun's root cause that is a cause: a rank that exited with an error or was killed, not one that aborted.
bool isLauncherCause(const JobSnapshot& snap, const HostNote& n)
{
    return snap.str(n.source) == "torchrun" && n.rank != kNoRank && snap.str(n.kind) == "first observed failure"
        && n.code != -kSigAbrt && n.code != std::numeric_limits<std::int64_t>::min(); // min: the table said none
}

// RAS facts that say a rank dropped out of the job (not merely that it lags or erred).
bool isRasLoss(const JobSnapshot& snap, const HostNote& n)
{
    return snap.str(n.source) == "nccl ras" && n.rank != kNoRank
        && (snap.str(n.kind) == "considered dead" || snap.str(n.kind) == "missing from communicator");
}

} // namespace

void attachHostNotes(const JobSnapshot& snap, Incident& inc)
{
    if (snap.notes.empty()) {
        return;
    }
    const TimeNs from = inc.startNs - kNoteSlackNs;
    const TimeNs to = std::max(inc.endNs, inc.jobDiedNs == kNoTime ? inc.endNs : inc.jobDiedNs) + kNoteSlackNs;
    auto inWindow = [&](const HostNote& n) { return n.timeNs == kNoTime || (n.timeNs >= from && n.timeNs <= to); };

    // Slurm's story: one task killed by a signal that is not an abort, while others aborted or exited.
    std::set<std::uint32_t> killed, others;
    for (const auto& n : snap.notes) {
        if (isTaskFate(snap, n) && inWindow(n)) {
            (snap.str(n.kind) == "killed by signal" && n.code != kSigAbrt ? killed : others).insert(n.rank);
        }
    }
    if (killed.size() == 1 && !others.empty() && !others.count(*killed.begin())) {
        inc.killedRank = *killed.begin();
    }
    // RAS's story, for a collective no link explains: exactly one rank it names lost.
    std::set<std::uint32_t> lost;
    for (const auto& n : snap.notes) {
        if (!inc.culprit && isRasLoss(snap, n) && inWindow(n)) {
            lost.insert(n.rank);
        }
    }
    if (lost.size() == 1) {
        inc.rasRank = *lost.begin();
    }
    for (const auto& n : snap.notes) { // notes are in time order: the first root cause of the window
        if (isLauncherCause(snap, n) && inWindow(n)) {
            inc.launcherRank = n.rank;
            break;
        }
    }

    std::set<std::uint32_t> ranks(inc.suspectRanks.begin(), inc.suspectRanks.end());
    ranks.insert(inc.missingRanks.begin(), inc.missingRanks.end());
    ranks.insert(inc.firstFailedRanks.begin(), inc.firstFailedRanks.end());
    if (inc.killedRank) {
        ranks.insert(*inc.killedRank);
    }
    if (inc.rasRank) {
        ranks.insert(*inc.rasRank);
    }
    if (inc.launcherRank) {
        ranks.insert(*inc.launcherRank);
    }
    std::set<StringId> hosts;
    for (const auto r : ranks) {
        if (r < snap.ranks.size() && !snap.str(snap.ranks[r].host).empty()) {
            hosts.insert(snap.ranks[r].host);
        }
    }
    for (const auto& n : snap.notes) {
        if (inc.hostEvidence.size() >= kMaxHostEvidence) {
            break;
        }
        const bool about = n.rank != kNoRank ? ranks.count(n.rank) > 0 : hosts.count(n.host) > 0;
        if (!about || !inWindow(n)) {
            continue;
        }
        std::string who = snap.str(n.host);
        if (n.rank != kNoRank) {
            who = "rank " + std::to_string(n.rank) + (who.empty() ? "" : " (" + who + ")");
        }
        inc.hostEvidence.push_back({ n.timeNs, who + ": " + snap.str(n.text) + " [" + snap.str(n.source) + "]", 1.0 });
    }
    // What the suspect hosts' node tools and sysfs copies show (a Down port, a vanished HCA): undated readings.
    if (snap.hostPorts.empty() && snap.goneHcas.empty()) {
        return;
    }
    std::set<std::string> hostNames;
    for (const auto h : hosts) {
        hostNames.insert(snap.str(h));
    }
    for (const auto& f : findNodeProblems(snap)) {
        if (inc.hostEvidence.size() >= kMaxHostEvidence) {
            break;
        }
        if (hostNames.count(f.host)) {
            inc.hostEvidence.push_back(
                { kNoTime, f.host + ": " + f.kind + ": " + f.text + " [" + f.evidence + "]", 1.0 });
        }
    }
}

std::string hostStory(const JobSnapshot& snap, const Incident& inc)
{
    std::string s;
    if (inc.killedRank) {
        const auto r = *inc.killedRank;
        const auto host = r < snap.ranks.size() ? snap.str(snap.ranks[r].host) : std::string();
        for (const auto& n : snap.notes) {
            if (n.rank == r && snap.str(n.kind) == "killed by signal") {
                s += "Slurm: rank " + std::to_string(r) + (host.empty() ? "" : " (" + host + ")")
                    + " was killed (signal " + std::to_string(n.code) + ") while the others aborted";
                break;
            }
        }
    }
    if (inc.rasRank && (!inc.killedRank || *inc.killedRank != *inc.rasRank)) {
        for (const auto& n : snap.notes) {
            if (n.rank == *inc.rasRank && isRasLoss(snap, n)) {
                s += (s.empty() ? "" : "; ") + std::string("NCCL RAS: ") + snap.str(n.text);
                break;
            }
        }
    }
    if (inc.launcherRank && inc.launcherRank != inc.killedRank) {
        for (const auto& n : snap.notes) {
            if (n.rank == *inc.launcherRank && isLauncherCause(snap, n)) {
                const auto host = snap.str(n.host);
                s += (s.empty() ? "" : "; ") + std::string("torchrun's first observed failure: rank ")
                    + std::to_string(n.rank) + (host.empty() ? "" : " (" + host + ")") + ", " + snap.str(n.text);
                break;
            }
        }
    }
    for (const auto& n : snap.notes) {
        if (snap.str(n.kind) == "GPU Xid"
            && std::any_of(inc.hostEvidence.begin(), inc.hostEvidence.end(), [&](const EvidenceLine& e) {
                   return e.timeNs == n.timeNs && e.what.find(snap.str(n.text)) != std::string::npos;
               })) {
            s += (s.empty() ? "" : "; ") + snap.str(n.host) + ": " + snap.str(n.text);
            break;
        }
    }
    return s;
}

} // namespace stallscope::analysis
