/* The smallest DPU program: every tasklet returns at once. */
int main(void)
{
    return 0;
}
