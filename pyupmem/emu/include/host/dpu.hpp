/* dpu.hpp: the SDK's C++ host API (namespace dpu), a header-only layer over the C API of
 * dpu.h, for pyupmem's emulator; C++ programs include it as <dpu> too. Build with
 *     g++ -std=c++11 prog.cpp $(dpu-pkg-config --cflags --libs dpu)
 *
 *     auto system = dpu::DpuSet::allocate(64);
 *     system.load("kernel");
 *     system.copy("input", data);               // the same vector to every DPU
 *     system.copy("shares", 0, per_dpu);        // one vector per DPU
 *     system.exec();                            // throws dpu::DpuError on a fault
 *     system.copy(results, "output");           // one vector per DPU back
 *     system.log(std::cout);
 *
 * Differences from the SDK's header: a DpuSet can be moved but not copied (the SDK's copy
 * would free the DPUs twice), and DpuError keeps its message in a std::string and exposes
 * its status as errorId(). */
#ifndef DPU_HPP
#define DPU_HPP

#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <dpu.h>
#include <dpu_log_internals.h>
#include <dpu_management.h>

namespace dpu {

/* DpuSet::allocate(ALLOCATE_ALL): every DPU of the system. */
const unsigned ALLOCATE_ALL = DPU_ALLOCATE_ALL;

/* A libdpu call failed: what() is the library's message. */
class DpuError : public std::exception {
public:
    explicit DpuError(dpu_error_t ErrorId)
        : id(ErrorId)
    {
        char *text = dpu_error_to_string(ErrorId);
        msg = text ? text : "unknown error";
        std::free(text);
    }

    const char *what() const noexcept override { return msg.c_str(); }

    dpu_error_t errorId() const noexcept { return id; }

    static void throwOnErr(dpu_error_t Error)
    {
        if (Error != DPU_OK)
            throw DpuError(Error);
    }

private:
    dpu_error_t id;
    std::string msg;
};

/* A symbol of a DPU program: an address and a size. */
class DpuSymbol {
    friend class DpuProgram;
    friend class DpuSetOps;

public:
    DpuSymbol(unsigned Address, unsigned Size)
    {
        cSymbol.address = Address;
        cSymbol.size = Size;
    }

private:
    DpuSymbol()
        : cSymbol()
    {
    }
    struct dpu_symbol_t cSymbol;
};

/* A loaded DPU program: where its symbols are. */
class DpuProgram {
    friend class DpuSet;

public:
    DpuSymbol get(const std::string &SymbolName)
    {
        DpuSymbol symbol;
        DpuError::throwOnErr(dpu_get_symbol(cProgram, SymbolName.c_str(), &symbol.cSymbol));
        return symbol;
    }

private:
    struct dpu_program_t *cProgram = nullptr;
};

class DpuSet;
class DpuSetAsync;

/* The function DpuSetAsync::call runs, with a set of DPUs (a rank, or the whole set). */
using CallbackFn = std::function<void(DpuSet &, unsigned)>;

namespace detail {
template <class F> bool getBlock(struct sg_block_info *out, uint32_t dpuIndex, uint32_t blockIndex, void *args)
{
    return (*static_cast<F *>(args))(out, dpuIndex, blockIndex);
}

inline dpu_sg_xfer_flags_t sgFlags(bool async, bool lengthCheck)
{
    unsigned flags = async ? DPU_SG_XFER_ASYNC : DPU_SG_XFER_DEFAULT;
    if (!lengthCheck)
        flags |= DPU_SG_XFER_DISABLE_LENGTH_CHECK;
    return static_cast<dpu_sg_xfer_flags_t>(flags);
}

/* Every per-DPU vector has the same number of elements; that number. */
template <typename T> unsigned commonSize(const std::vector<std::vector<T>> &Buffers)
{
    if (Buffers.empty())
        DpuError::throwOnErr(DPU_ERR_INVALID_MEMORY_TRANSFER);
    for (const auto &buffer : Buffers)
        if (buffer.size() != Buffers[0].size())
            DpuError::throwOnErr(DPU_ERR_INVALID_MEMORY_TRANSFER);
    return static_cast<unsigned>(Buffers[0].size());
}
} // namespace detail

/* The operations of a DPU set, synchronous (DpuSet) or queued (DpuSetAsync). */
class DpuSetOps {
    friend class DpuSet;
    friend class DpuSetAsync;

public:
    /* ---- the same vector to every DPU (dpu_broadcast_to) */
    template <typename T>
    void copy(const std::string &DstSymbol, unsigned Offset, const std::vector<T> &SrcBuffer, unsigned Size)
    {
        DpuError::throwOnErr(dpu_broadcast_to(cSet, DstSymbol.c_str(), Offset, SrcBuffer.data(), Size, xferFlags()));
    }
    template <typename T> void copy(const std::string &DstSymbol, unsigned Offset, const std::vector<T> &SrcBuffer)
    {
        copy(DstSymbol, Offset, SrcBuffer, static_cast<unsigned>(SrcBuffer.size() * sizeof(T)));
    }
    template <typename T> void copy(const std::string &DstSymbol, const std::vector<T> &SrcBuffer, unsigned Size)
    {
        copy(DstSymbol, 0, SrcBuffer, Size);
    }
    template <typename T> void copy(const std::string &DstSymbol, const std::vector<T> &SrcBuffer)
    {
        copy(DstSymbol, 0, SrcBuffer);
    }
    template <typename T>
    void copy(DpuSymbol &DstSymbol, unsigned Offset, const std::vector<T> &SrcBuffer, unsigned Size)
    {
        DpuError::throwOnErr(
            dpu_broadcast_to_symbol(cSet, DstSymbol.cSymbol, Offset, SrcBuffer.data(), Size, xferFlags()));
    }
    template <typename T> void copy(DpuSymbol &DstSymbol, unsigned Offset, const std::vector<T> &SrcBuffer)
    {
        copy(DstSymbol, Offset, SrcBuffer, static_cast<unsigned>(SrcBuffer.size() * sizeof(T)));
    }
    template <typename T> void copy(DpuSymbol &DstSymbol, const std::vector<T> &SrcBuffer, unsigned Size)
    {
        copy(DstSymbol, 0, SrcBuffer, Size);
    }
    template <typename T> void copy(DpuSymbol &DstSymbol, const std::vector<T> &SrcBuffer)
    {
        copy(DstSymbol, 0, SrcBuffer);
    }

    /* ---- one vector per DPU, to the DPUs (dpu_prepare_xfer + dpu_push_xfer) */
    template <typename T>
    void copy(const std::string &DstSymbol, unsigned Offset, const std::vector<std::vector<T>> &SrcBuffers,
              unsigned Size)
    {
        prepare(SrcBuffers);
        DpuError::throwOnErr(dpu_push_xfer(cSet, DPU_XFER_TO_DPU, DstSymbol.c_str(), Offset, Size, xferFlags()));
    }
    template <typename T>
    void copy(const std::string &DstSymbol, unsigned Offset, const std::vector<std::vector<T>> &SrcBuffers)
    {
        copy(DstSymbol, Offset, SrcBuffers, detail::commonSize(SrcBuffers) * static_cast<unsigned>(sizeof(T)));
    }
    template <typename T>
    void copy(const std::string &DstSymbol, const std::vector<std::vector<T>> &SrcBuffers, unsigned Size)
    {
        copy(DstSymbol, 0, SrcBuffers, Size);
    }
    template <typename T> void copy(const std::string &DstSymbol, const std::vector<std::vector<T>> &SrcBuffers)
    {
        copy(DstSymbol, 0, SrcBuffers);
    }
    template <typename T>
    void copy(DpuSymbol &DstSymbol, unsigned Offset, const std::vector<std::vector<T>> &SrcBuffers, unsigned Size)
    {
        prepare(SrcBuffers);
        DpuError::throwOnErr(
            dpu_push_xfer_symbol(cSet, DPU_XFER_TO_DPU, DstSymbol.cSymbol, Offset, Size, xferFlags()));
    }
    template <typename T>
    void copy(DpuSymbol &DstSymbol, unsigned Offset, const std::vector<std::vector<T>> &SrcBuffers)
    {
        copy(DstSymbol, Offset, SrcBuffers, detail::commonSize(SrcBuffers) * static_cast<unsigned>(sizeof(T)));
    }
    template <typename T>
    void copy(DpuSymbol &DstSymbol, const std::vector<std::vector<T>> &SrcBuffers, unsigned Size)
    {
        copy(DstSymbol, 0, SrcBuffers, Size);
    }
    template <typename T> void copy(DpuSymbol &DstSymbol, const std::vector<std::vector<T>> &SrcBuffers)
    {
        copy(DstSymbol, 0, SrcBuffers);
    }

    /* ---- one vector per DPU, from the DPUs */
    template <typename T>
    void copy(std::vector<std::vector<T>> &DstBuffers, unsigned Size, const std::string &SrcSymbol, unsigned Offset)
    {
        prepare(DstBuffers);
        DpuError::throwOnErr(dpu_push_xfer(cSet, DPU_XFER_FROM_DPU, SrcSymbol.c_str(), Offset, Size, xferFlags()));
    }
    template <typename T>
    void copy(std::vector<std::vector<T>> &DstBuffers, unsigned Size, const std::string &SrcSymbol)
    {
        copy(DstBuffers, Size, SrcSymbol, 0);
    }
    template <typename T>
    void copy(std::vector<std::vector<T>> &DstBuffers, const std::string &SrcSymbol, unsigned Offset)
    {
        copy(DstBuffers, detail::commonSize(DstBuffers) * static_cast<unsigned>(sizeof(T)), SrcSymbol, Offset);
    }
    template <typename T> void copy(std::vector<std::vector<T>> &DstBuffers, const std::string &SrcSymbol)
    {
        copy(DstBuffers, SrcSymbol, 0);
    }
    template <typename T>
    void copy(std::vector<std::vector<T>> &DstBuffers, unsigned Size, DpuSymbol &SrcSymbol, unsigned Offset)
    {
        prepare(DstBuffers);
        DpuError::throwOnErr(
            dpu_push_xfer_symbol(cSet, DPU_XFER_FROM_DPU, SrcSymbol.cSymbol, Offset, Size, xferFlags()));
    }
    template <typename T> void copy(std::vector<std::vector<T>> &DstBuffers, unsigned Size, DpuSymbol &SrcSymbol)
    {
        copy(DstBuffers, Size, SrcSymbol, 0);
    }
    template <typename T> void copy(std::vector<std::vector<T>> &DstBuffers, DpuSymbol &SrcSymbol, unsigned Offset)
    {
        copy(DstBuffers, detail::commonSize(DstBuffers) * static_cast<unsigned>(sizeof(T)), SrcSymbol, Offset);
    }
    template <typename T> void copy(std::vector<std::vector<T>> &DstBuffers, DpuSymbol &SrcSymbol)
    {
        copy(DstBuffers, SrcSymbol, 0);
    }

    /* ---- scatter-gather (the set must be allocated with the profile sgXferEnable=true).
     * To the DPUs: copyScatterGather(symbol, [offset,] blocks, size[, length_check]);
     * from the DPUs: copyScatterGather(blocks, size, symbol[, offset][, length_check]).
     * blocks is a get_block_t or a callable bool(sg_block_info *, uint32_t dpu, uint32_t block). */
    void copyScatterGather(const std::string &DstSymbol, unsigned Offset, get_block_t &get_block_info,
                           unsigned Size, bool length_check = true)
    {
        DpuError::throwOnErr(dpu_push_sg_xfer(cSet, DPU_XFER_TO_DPU, DstSymbol.c_str(), Offset, Size,
                                              &get_block_info, detail::sgFlags(async, length_check)));
    }
    void copyScatterGather(const std::string &DstSymbol, get_block_t &get_block_info, unsigned Size,
                           bool length_check = true)
    {
        copyScatterGather(DstSymbol, 0, get_block_info, Size, length_check);
    }
    template <class F>
    void copyScatterGather(const std::string &DstSymbol, unsigned Offset, F f, unsigned Size, bool length_check = true)
    {
        get_block_t get_block_info{detail::getBlock<F>, &f, sizeof(f)};
        copyScatterGather(DstSymbol, Offset, get_block_info, Size, length_check);
    }
    template <class F>
    void copyScatterGather(const std::string &DstSymbol, F f, unsigned Size, bool length_check = true)
    {
        copyScatterGather(DstSymbol, 0, f, Size, length_check);
    }
    void copyScatterGather(DpuSymbol &DstSymbol, unsigned Offset, get_block_t &get_block_info, unsigned Size,
                           bool length_check = true)
    {
        DpuError::throwOnErr(dpu_push_sg_xfer_symbol(cSet, DPU_XFER_TO_DPU, DstSymbol.cSymbol, Offset, Size,
                                                     &get_block_info, detail::sgFlags(async, length_check)));
    }
    void copyScatterGather(DpuSymbol &DstSymbol, get_block_t &get_block_info, unsigned Size, bool length_check = true)
    {
        copyScatterGather(DstSymbol, 0, get_block_info, Size, length_check);
    }
    template <class F>
    void copyScatterGather(DpuSymbol &DstSymbol, unsigned Offset, F f, unsigned Size, bool length_check = true)
    {
        get_block_t get_block_info{detail::getBlock<F>, &f, sizeof(f)};
        copyScatterGather(DstSymbol, Offset, get_block_info, Size, length_check);
    }
    template <class F> void copyScatterGather(DpuSymbol &DstSymbol, F f, unsigned Size, bool length_check = true)
    {
        copyScatterGather(DstSymbol, 0, f, Size, length_check);
    }
    void copyScatterGather(get_block_t &get_block_info, unsigned Size, const std::string &SrcSymbol, unsigned Offset,
                           bool length_check = true)
    {
        DpuError::throwOnErr(dpu_push_sg_xfer(cSet, DPU_XFER_FROM_DPU, SrcSymbol.c_str(), Offset, Size,
                                              &get_block_info, detail::sgFlags(async, length_check)));
    }
    void copyScatterGather(get_block_t &get_block_info, unsigned Size, const std::string &SrcSymbol,
                           bool length_check = true)
    {
        copyScatterGather(get_block_info, Size, SrcSymbol, 0, length_check);
    }
    template <class F>
    void copyScatterGather(F f, unsigned Size, const std::string &SrcSymbol, unsigned Offset, bool length_check = true)
    {
        get_block_t get_block_info{detail::getBlock<F>, &f, sizeof(f)};
        copyScatterGather(get_block_info, Size, SrcSymbol, Offset, length_check);
    }
    template <class F> void copyScatterGather(F f, unsigned Size, const std::string &SrcSymbol, bool length_check = true)
    {
        copyScatterGather(f, Size, SrcSymbol, 0, length_check);
    }
    void copyScatterGather(get_block_t &get_block_info, unsigned Size, DpuSymbol &SrcSymbol, unsigned Offset,
                           bool length_check = true)
    {
        DpuError::throwOnErr(dpu_push_sg_xfer_symbol(cSet, DPU_XFER_FROM_DPU, SrcSymbol.cSymbol, Offset, Size,
                                                     &get_block_info, detail::sgFlags(async, length_check)));
    }
    void copyScatterGather(get_block_t &get_block_info, unsigned Size, DpuSymbol &SrcSymbol, bool length_check = true)
    {
        copyScatterGather(get_block_info, Size, SrcSymbol, 0, length_check);
    }
    template <class F>
    void copyScatterGather(F f, unsigned Size, DpuSymbol &SrcSymbol, unsigned Offset, bool length_check = true)
    {
        get_block_t get_block_info{detail::getBlock<F>, &f, sizeof(f)};
        copyScatterGather(get_block_info, Size, SrcSymbol, Offset, length_check);
    }
    template <class F> void copyScatterGather(F f, unsigned Size, DpuSymbol &SrcSymbol, bool length_check = true)
    {
        copyScatterGather(f, Size, SrcSymbol, 0, length_check);
    }

    /* Runs the loaded program (synchronously on a DpuSet); a fault throws DpuError. */
    void exec()
    {
        DpuError::throwOnErr(dpu_launch(cSet, async ? DPU_ASYNCHRONOUS : DPU_SYNCHRONOUS));
    }

private:
    struct dpu_set_t cSet;
    bool async;

    DpuSetOps(const struct dpu_set_t &CSet, bool Async)
        : cSet(CSet)
        , async(Async)
    {
    }

    dpu_xfer_flags_t xferFlags() const { return async ? DPU_XFER_ASYNC : DPU_XFER_DEFAULT; }

    template <typename T> void prepare(const std::vector<std::vector<T>> &Buffers)
    {
        struct dpu_set_t each;
        unsigned index;
        DPU_FOREACH(cSet, each, index)
        {
            if (index >= Buffers.size())
                DpuError::throwOnErr(DPU_ERR_INVALID_MEMORY_TRANSFER); /* fewer vectors than DPUs */
            DpuError::throwOnErr(dpu_prepare_xfer(each, const_cast<T *>(Buffers[index].data())));
        }
    }
};

/* A set of DPUs (all those allocated, a rank, or one DPU); operations are synchronous. */
class DpuSet : public DpuSetOps {
    friend class DpuSetAsync;

public:
    DpuSet(const DpuSet &) = delete;
    DpuSet &operator=(const DpuSet &) = delete;
    DpuSet(DpuSet &&Other) noexcept
        : DpuSetOps(Other.cSet, false)
        , manageCSet(Other.manageCSet)
        , _dpus(std::move(Other._dpus))
        , _ranks(std::move(Other._ranks))
        , owned(std::move(Other.owned))
    {
        Other.manageCSet = false;
    }

    ~DpuSet()
    {
        if (manageCSet)
            dpu_free(cSet);
    }

    /* The DPUs, and the ranks, of this set (each a DpuSet owned by the allocated set). */
    std::vector<DpuSet *> &dpus() { return _dpus; }
    std::vector<DpuSet *> &ranks() { return _ranks; }

    static DpuSet allocate(unsigned NrDpus = ALLOCATE_ALL, const std::string &Profile = "")
    {
        struct dpu_set_t cSet;
        DpuError::throwOnErr(dpu_alloc(NrDpus, Profile.c_str(), &cSet));
        return DpuSet(cSet, true, true);
    }

    static DpuSet allocateRanks(unsigned NrRanks = ALLOCATE_ALL, const std::string &Profile = "")
    {
        struct dpu_set_t cSet;
        DpuError::throwOnErr(dpu_alloc_ranks(NrRanks, Profile.c_str(), &cSet));
        return DpuSet(cSet, true, true);
    }

    DpuProgram load(const std::string &Executable)
    {
        DpuProgram program;
        DpuError::throwOnErr(dpu_load(cSet, Executable.c_str(), &program.cProgram));
        return program;
    }

    /* Writes each DPU's log, "=== DPU#0x<id> ===" then what it printed, to LogStream. */
    void log(std::ostream &LogStream)
    {
        for (DpuSet *each : _dpus) {
            struct dpu_t *one = dpu_from_set(each->cSet);
            DpuError::throwOnErr(print(&LogStream, DPU_LOG_FORMAT_HEADER, dpu_get_id(one)));
            DpuError::throwOnErr(dpulog_read_for_dpu_(one, print, &LogStream));
        }
    }

    DpuSetAsync async();

private:
    bool manageCSet;
    std::vector<DpuSet *> _dpus;
    std::vector<DpuSet *> _ranks;
    std::vector<std::unique_ptr<DpuSet>> owned; /* the rank and DPU views, of the top set */

    DpuSet(struct dpu_set_t CSet, bool ManageCSet, bool DetectChildren)
        : DpuSetOps(CSet, false)
        , manageCSet(ManageCSet)
    {
        if (!DetectChildren)
            return;
        struct dpu_set_t cRank, cDpu;
        DPU_RANK_FOREACH(CSet, cRank)
        {
            owned.emplace_back(new DpuSet(cRank, false, false));
            DpuSet *rank = owned.back().get();
            rank->_ranks.push_back(rank);
            _ranks.push_back(rank);
            DPU_FOREACH(cRank, cDpu)
            {
                owned.emplace_back(new DpuSet(cDpu, false, false));
                DpuSet *one = owned.back().get();
                one->_dpus.push_back(one);
                one->_ranks.push_back(rank);
                rank->_dpus.push_back(one);
                _dpus.push_back(one);
            }
        }
    }

    static dpu_error_t print(void *Arg, const char *Format, ...)
    {
        va_list ap, again;
        va_start(ap, Format);
        va_copy(again, ap);
        int length = std::vsnprintf(nullptr, 0, Format, ap);
        va_end(ap);
        if (length < 0) {
            va_end(again);
            return DPU_ERR_SYSTEM;
        }
        std::string text(static_cast<size_t>(length) + 1, '\0');
        std::vsnprintf(&text[0], text.size(), Format, again);
        va_end(again);
        text.resize(static_cast<size_t>(length));
        *static_cast<std::ostream *>(Arg) << text;
        return DPU_OK;
    }
};

/* The queued form of a DpuSet's operations (the emulator completes them at once). */
class DpuSetAsync : public DpuSetOps {
    friend class DpuSet;

    struct CallContext {
        CallbackFn callback;
    };

public:
    /* Calls Callback for each rank of the set (with its index), or once for the whole set
     * (index (unsigned)-1), as dpu_callback does. */
    void call(const CallbackFn &Callback, bool IsBlocking, bool SingleCall)
    {
        unsigned flags = DPU_CALLBACK_ASYNC;
        if (!IsBlocking)
            flags |= DPU_CALLBACK_NONBLOCKING;
        if (SingleCall)
            flags |= DPU_CALLBACK_SINGLE_CALL;
        /* The emulator runs callbacks before dpu_callback returns, so the context can live here. */
        CallContext context{Callback};
        DpuError::throwOnErr(dpu_callback(cSet, wrapper, &context, static_cast<dpu_callback_flags_t>(flags)));
    }

    void call(const CallbackFn &Callback) { call(Callback, true, false); }

    /* Waits for the queued operations. */
    void sync() { DpuError::throwOnErr(dpu_sync(set->cSet)); }

private:
    DpuSet *set;

    explicit DpuSetAsync(DpuSet *Set)
        : DpuSetOps(Set->cSet, true)
        , set(Set)
    {
    }

    static dpu_error_t wrapper(struct dpu_set_t CSet, uint32_t Index, void *Arg)
    {
        DpuSet view(CSet, false, true);
        static_cast<CallContext *>(Arg)->callback(view, Index);
        return DPU_OK;
    }
};

inline DpuSetAsync DpuSet::async()
{
    return DpuSetAsync(this);
}

} // namespace dpu

#endif /* DPU_HPP */
