/** Where an instance is in its life: a draining instance answers /readyz 503 so load balancers move away. */
export interface Lifecycle {
  readonly draining: boolean;
  /** Called at SIGTERM/SIGINT, before the server stops accepting connections. */
  startDraining(): void;
}

export function createLifecycle(): Lifecycle {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    startDraining() {
      draining = true;
    },
  };
}
