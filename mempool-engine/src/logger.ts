/**
 * What the engine logs through: the slice of pino's interface it calls, so
 * that it takes the server's logger (Fastify's) or a test double without
 * knowing either.
 */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
