/* The second local user of the shared-host tests (tests/setup-users.sh
 * makes `hrrtest2`, or $HRR_TEST_USER2): files it plants are another user's, as on a host
 * several people share. Planted before the code under test runs: no
 * races. */
#ifndef HRR_TESTS_SUPPORT_OTHER_USER_H
#define HRR_TESTS_SUPPORT_OTHER_USER_H

#include <sys/types.h>

/* $HRR_TEST_USER2, else hrrtest2. */
const char *other_user_name(void);
/* Its uid (the test fails when the user does not exist). */
uid_t other_user_uid(void);
/* Run `sh -c cmd` as that user with no supplementary groups (setpriv);
 * the test fails unless it exits 0. */
void other_user_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
