/**
 * Whether a process with this pid exists. Signal 0 checks without signalling;
 * EPERM means it exists but belongs to someone else. Pid files (locks, a
 * node's datadir) use this to tell a live owner from a stale file.
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
