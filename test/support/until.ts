// Waits for a condition a test cannot await directly (a request held in the emulator, a row
// drawn, a timer armed), checking it every `intervalMs`. No deadline of its own: the suite's
// timeout ends a wait that never comes, so a busy machine only makes it slower.
export async function until(condition: () => boolean, intervalMs = 10): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
