/* Applies the DPU intrinsics of built_ins.h to operand pairs (a[i], b[i]) from the MRAM
 * heap and writes their results after the operands, NR_RESULTS words per pair, for
 * tests/test_emu_builtins.py to compare against its own arithmetic. Heap layout:
 * a[nr_pairs], b[nr_pairs], results[nr_pairs][NR_RESULTS]. One tasklet. */
#include <stdint.h>
#include <built_ins.h>
#include <defs.h>
#include <mram.h>

#define NR_RESULTS 96
#define BLOCK 4

__host uint32_t nr_pairs;
__host uint32_t nr_results; /* how many results the kernel wrote per pair */

static uint32_t a_block[BLOCK] __dma_aligned;
static uint32_t b_block[BLOCK] __dma_aligned;
static uint32_t out_block[BLOCK * NR_RESULTS] __dma_aligned;

#define PUT(x) (out[k++] = (uint32_t)(x))
#define PUT64(x) (PUT((uint64_t)(x)), PUT((uint64_t)(x) >> 32))

static unsigned compute(uint32_t a, uint32_t b, uint32_t *out)
{
    unsigned k = 0;
    uint32_t r = 0, hi = 0;
    int32_t s = 0;
    int64_t d = 0;
    uint64_t u = 0;

    /* 8x8 multiplies: byte of a (signed/unsigned, low/high) times byte of b; the ISA has
     * no unsigned-times-signed form. */
    __builtin_mul_sl_sl_rrr(s, a, b); PUT(s);
    __builtin_mul_sl_sh_rrr(s, a, b); PUT(s);
    __builtin_mul_sl_ul_rrr(s, a, b); PUT(s);
    __builtin_mul_sl_uh_rrr(s, a, b); PUT(s);
    __builtin_mul_sh_sl_rrr(s, a, b); PUT(s);
    __builtin_mul_sh_sh_rrr(s, a, b); PUT(s);
    __builtin_mul_sh_ul_rrr(s, a, b); PUT(s);
    __builtin_mul_sh_uh_rrr(s, a, b); PUT(s);
    __builtin_mul_ul_ul_rrr(r, a, b); PUT(r);
    __builtin_mul_ul_uh_rrr(r, a, b); PUT(r);
    __builtin_mul_uh_ul_rrr(r, a, b); PUT(r);
    __builtin_mul_uh_uh_rrr(r, a, b); PUT(r);

    /* Counts and extensions. */
    __builtin_clz_rr(r, a); PUT(r);
    __builtin_clo_rr(r, a); PUT(r);
    __builtin_cls_rr(r, a); PUT(r);
    __builtin_cao_rr(r, a); PUT(r);
    __builtin_extsb_rr(r, a); PUT(r);
    __builtin_extsh_rr(r, a); PUT(r);
    __builtin_extub_rr(r, a); PUT(r);
    __builtin_extuh_rr(r, a); PUT(r);

    /* Two-register operations (shift amounts: the low 5 bits of b). */
    __builtin_add_rrr(r, a, b); PUT(r);
    __builtin_sub_rrr(r, a, b); PUT(r);
    __builtin_rsub_rrr(r, a, b); PUT(r);
    __builtin_and_rrr(r, a, b); PUT(r);
    __builtin_andn_rrr(r, a, b); PUT(r);
    __builtin_or_rrr(r, a, b); PUT(r);
    __builtin_orn_rrr(r, a, b); PUT(r);
    __builtin_xor_rrr(r, a, b); PUT(r);
    __builtin_nand_rrr(r, a, b); PUT(r);
    __builtin_nor_rrr(r, a, b); PUT(r);
    __builtin_nxor_rrr(r, a, b); PUT(r);
    __builtin_asr_rrr(r, a, b); PUT(r);
    __builtin_lsl_rrr(r, a, b); PUT(r);
    __builtin_lsr_rrr(r, a, b); PUT(r);
    __builtin_lsl1_rrr(r, a, b); PUT(r);
    __builtin_lsr1_rrr(r, a, b); PUT(r);
    __builtin_lslx_rrr(r, a, b); PUT(r);
    __builtin_lsrx_rrr(r, a, b); PUT(r);
    __builtin_rol_rrr(r, a, b); PUT(r);
    __builtin_ror_rrr(r, a, b); PUT(r);
    __builtin_cmpb4_rrr(r, a, b); PUT(r);

    /* Carry chains: (b:a) + (a:b), (b:a) - (a:b), rsub, carry into an immediate. */
    __builtin_add_rrr(r, a, b); __builtin_addc_rrr(hi, b, a); PUT(r); PUT(hi);
    __builtin_sub_rrr(r, a, b); __builtin_subc_rrr(hi, b, a); PUT(r); PUT(hi);
    __builtin_rsub_rrr(r, a, b); __builtin_rsubc_rrr(hi, b, a); PUT(r); PUT(hi);
    __builtin_add_zrr(a, b); __builtin_addc_rri(r, a, "5"); PUT(r);
    __builtin_sub_zrr(a, b); __builtin_subc_rir(r, "100", b); PUT(r);

    /* Immediates, as the SDK writes them (string literals) and as integers. */
    __builtin_lsl_rri(r, a, "3"); PUT(r);
    __builtin_lsr_rri(r, a, "31"); PUT(r);
    __builtin_asr_rri(r, a, 7); PUT(r);
    __builtin_rol_rri(r, a, "0x4"); PUT(r);
    __builtin_add_rri(r, a, "-7"); PUT(r);
    __builtin_sub_rir(r, "0x10", a); PUT(r);
    __builtin_xor_rri(r, a, "0xff"); PUT(r);
    __builtin_lsl1_rri(r, a, "0"); PUT(r);
    __builtin_lsrx_rri(r, a, "8"); PUT(r);

    /* Shift-and-add. */
    __builtin_lsl_add_rrri(r, a, b, "4"); PUT(r);
    __builtin_lsl_sub_rrri(r, a, b, "2"); PUT(r);
    __builtin_lsr_add_rrri(r, a, b, "5"); PUT(r);
    __builtin_rol_add_rrri(r, a, b, "13"); PUT(r);

    /* 64-bit destinations, sign- or zero-extended. */
    __builtin_add_s_rrr(d, a, b); PUT64(d);
    __builtin_add_u_rrr(u, a, b); PUT64(u);
    __builtin_mul_sh_sh_s_rrr(d, a, b); PUT64(d);
    __builtin_extsb_s_rr(d, a); PUT64(d);
    __builtin_clz_u_rr(u, a); PUT64(u);
    __builtin_lsl_add_s_rrri(d, a, b, "1"); PUT64(d);
    __builtin_asr_u_rri(u, a, "1"); PUT64(u);

    /* Pseudo-instructions. */
    __builtin_move_rr(r, a); PUT(r);
    __builtin_move_ri(r, "-1"); PUT(r);
    __builtin_neg_rr(r, a); PUT(r);
    __builtin_not_rr(r, a); PUT(r);
    __builtin_nop_();

    return k;
}

int main(void)
{
    uint32_t n = nr_pairs;
    __mram_ptr uint32_t *heap = (__mram_ptr uint32_t *)DPU_MRAM_HEAP_POINTER;
    for (uint32_t first = 0; first < n; first += BLOCK) {
        mram_read(heap + first, a_block, sizeof(a_block));
        mram_read(heap + n + first, b_block, sizeof(b_block));
        for (unsigned i = 0; i < BLOCK; i++) {
            unsigned k = compute(a_block[i], b_block[i], out_block + i * NR_RESULTS);
            nr_results = k;
            while (k < NR_RESULTS)
                out_block[i * NR_RESULTS + k++] = 0;
        }
        mram_write(out_block, heap + 2 * n + first * NR_RESULTS, sizeof(out_block));
    }
    return 0;
}
