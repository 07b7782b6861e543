/** The slice of pino's interface the services use, so they take Fastify's logger or a test double. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
