/* myriad-envvars — print the environment variable table as Markdown. */
#include "env.h"

int main(void)
{
    myr_env_print_markdown(stdout);
    return 0;
}
