// SPDX-License-Identifier: MIT
#pragma once

// Internal to the raw writer (raw_writer.cpp): one function per kind of file a cluster leaves, each returning the
// file's text. Rank side in raw_rank_files.cpp, fabric side in raw_fabric_files.cpp, hosts' node files in
// raw_node_files.cpp.

#include "core/job_snapshot.h"

#include <ctime>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace stallscope::rawfiles {

// Log time stamps (UTC civil time of `t`; callers add the log's zone offset first).
std::tm civil(TimeNs t);
std::string opensmStamp(TimeNs t); // "Nov 01 00:05:03 162555"

// Rank side. `from`: the first record kept (the Flight Recorder's ring buffer holds the last N).
std::string pickleDump(const JobSnapshot& snap, std::uint32_t rank, std::size_t from, const std::string& threadId);
std::string jsonDump(const JobSnapshot& snap, std::uint32_t rank, std::size_t from, const std::string& threadId);
std::string kinetoTrace(const JobSnapshot& snap, std::uint32_t r, TimeNs skew);
std::string rankLog(
    const JobSnapshot& snap, std::uint32_t r, const std::vector<const LinkEvent*>& ownEvents, TimeNs local);

// Fabric side.
std::string ibnetdiscoverText(const JobSnapshot& snap);
std::string ibsimNet(const JobSnapshot& snap);
std::string opensmLog(const JobSnapshot& snap, TimeNs local);
// Writes the switch exposition (with `switches`) and one collector CSV per host of `hosts` (null: every host) into
// `dir`; "" or an error naming the file. Memory: one host's rows.
std::string writeCounters(
    const JobSnapshot& snap, const std::filesystem::path& dir, const std::set<std::string>* hosts, bool switches);
std::uint64_t portGuid(std::uint64_t nodeGuid); // the port GUID ibnetdiscover prints for a node
std::uint32_t lidOf(std::uint32_t node); // the LID the simulated subnet manager gave a node

// Node side (raw_node_files.cpp). Writes nodes/<host>/{ibstat.txt,dmesg.txt,sys/class/infiniband/...} per host
// into `dir`, one host at a time; the kernel log in local time `local` from UTC. "" or an error naming the file.
// `hosts`: these hosts only (null: every host).
std::string writeNodeFiles(
    const JobSnapshot& snap, const std::filesystem::path& dir, TimeNs local, const std::set<std::string>* hosts);

} // namespace stallscope::rawfiles
