/**
 * A process-wide install (a hook, a wrapper, a channel subscription) shared by several
 * holders, such as two debug instances in one process: the first hold installs it, the last
 * release takes it out, and a release called twice counts once.
 */
export class SharedInstall {
  private holders = 0;

  constructor(
    private readonly install: () => void = () => {},
    private readonly uninstall: () => void = () => {},
  ) {}

  /** Some holder has not let go yet. */
  get held(): boolean {
    return this.holders > 0;
  }

  /** One more holder; the returned function lets go (once). */
  hold(): () => void {
    if (this.holders++ === 0) this.install();
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      if (--this.holders === 0) this.uninstall();
    };
  }
}
