/*
 * The Pod sandbox's pause process for the local node: PID 1 of each Pod's namespaces. It reaps every
 * child handed to it (shareProcessNamespace Pods) and exits 0 on SIGINT/SIGTERM. Built static
 * (gcc -static) by e2e/local/build-images.sh.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_term(int sig) {
  (void)sig;
  _exit(0);
}

static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction term = {0};
  struct sigaction child = {0};
  term.sa_handler = on_term;
  child.sa_handler = on_child;
  child.sa_flags = SA_NOCLDSTOP | SA_RESTART;
  if (sigaction(SIGINT, &term, NULL) < 0 || sigaction(SIGTERM, &term, NULL) < 0 ||
      sigaction(SIGCHLD, &child, NULL) < 0) {
    return 1;
  }
  for (;;) pause();
}
