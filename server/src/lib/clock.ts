/** The clock is an injected side effect, so tests can pin "now" (docs/architecture.md, convention 3). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
