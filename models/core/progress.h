// SPDX-License-Identifier: MIT
#pragma once

// Progress and cancellation for long jobs (loading, simulating). Per job, never static.
// report() is called from the worker thread; implementations forward to the GUI as they see fit.

#include <atomic>
#include <cstdint>
#include <string_view>

namespace stallscope {

class Progress
{
public:
    virtual ~Progress() = default;
    virtual void report(std::string_view stage, std::uint64_t done, std::uint64_t total) = 0;
    virtual bool cancelled() const = 0;
};

// Does nothing and never cancels; used when the caller does not care.
class NullProgress final : public Progress
{
public:
    void report(std::string_view, std::uint64_t, std::uint64_t) override { }
    bool cancelled() const override { return false; }
};

// Cancellable from another thread via cancel(); reports nothing.
class CancelToken : public Progress
{
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    void report(std::string_view, std::uint64_t, std::uint64_t) override { }
    bool cancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled { false };
};

} // namespace stallscope
