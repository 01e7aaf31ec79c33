// SPDX-License-Identifier: MIT
#pragma once

// Which jobs each flap hit (issue #13): given the fabric review and several jobs (their snapshots and analyses),
// for every flap of every flapping link, the jobs running at that moment whose traffic crossed the link, and the
// stall each saw. A job's ranks are placed on the fabric by their HCA's description ("<host> <hca>"); a link
// carries a job's traffic when the job has ranks both below its lower end and elsewhere (ECMP spreads a leaf's
// outgoing flows over all its uplinks; a host link carries its rank's traffic whenever the job spans more than
// that HCA). Pure functions; safe on any thread.

#include "analysis/analysis.h"
#include "analysis/flaps.h"

#include <memory>
#include <string>
#include <vector>

namespace stallscope {

struct ReviewedJob
{
    std::string name;
    std::shared_ptr<const JobSnapshot> snapshot;
    std::shared_ptr<const AnalysisResult> analysis;
};

struct JobHit
{
    std::size_t link = 0; // index into FabricReview::flapping
    std::size_t flap = 0; // index into that link's flaps
    std::size_t job = 0; // index into the jobs given
    std::uint32_t ranksPlaced = 0; // the job's ranks found on the fabric
    int incident = 0; // the job's incident at the flap (0: none found — the job saw no stall there)
    TimeNs stallNs = 0;
    double gpuHours = 0;
    bool crashed = false;
    bool blamedThisLink = false; // the job's analysis named this link as the incident's culprit
};

struct JobsHit
{
    std::vector<JobHit> hits; // by link, flap, job
    std::vector<std::uint32_t> unplacedRanks; // per job: ranks whose HCA is not in the fabric's topology
};

JobsHit findJobsHit(const JobSnapshot& fabric, const FabricReview& review, const std::vector<ReviewedJob>& jobs);

std::string jobsHitText(const FabricReview& review, const std::vector<ReviewedJob>& jobs, const JobsHit& hits);

} // namespace stallscope
