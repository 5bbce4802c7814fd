// This gateway's role as the operations side reads it (DESIGN 22 "Operations"): /healthz's
// `role`, the `stablegate_cluster_leader` gauge and the `no_leader` alert. On SQLite a gateway is
// alone on its file (the instance lock sees to that): always the leader. On PostgreSQL the role
// is the elector's (src/cluster/leader.ts), and how long the cluster has gone without a leader is
// read from cluster_leader's heartbeat on the database's clock. It lives in ops/, not cluster/: a
// SQLite gateway reads it and loads nothing of src/cluster/ (src/app/engine-isolation.test.ts).
import type { LeaderElector, Role } from "../cluster/leader";

export type { Role } from "../cluster/leader";

export interface ClusterRole {
  role(): Role;
  isLeader(): boolean;
  /** [cluster] takeover_after in ms. */
  readonly takeoverAfterMs: number;
  /**
   * How long no gateway has led (ms): the age of the last leader's heartbeat, or since this
   * gateway started when none ever led; 0 while a leader beats. null when it cannot be told (the
   * database is unreachable: that has its own alerts) or never applies (SQLite).
   */
  leaderlessFor(): Promise<number | null>;
}

/** A gateway alone on its database (SQLite): the leader, always. */
export function singleGateway(takeoverAfterMs: number): ClusterRole {
  return { role: () => "leader", isLeader: () => true, takeoverAfterMs, leaderlessFor: async () => null };
}

/** A gateway of a PostgreSQL cluster: the role its elector holds. */
export function electedRole(elector: LeaderElector, startedAt = performance.now()): ClusterRole {
  return {
    role: () => elector.role(),
    isLeader: () => elector.isLeader(),
    takeoverAfterMs: elector.timings.takeoverAfterMs,
    async leaderlessFor() {
      if (elector.isLeader()) return 0;
      try {
        const row = await elector.row();
        if (!row) return Math.round(performance.now() - startedAt);
        // A live leader beats every takeover_after / 5: an older heartbeat means nobody leads.
        const age = row.now - row.heartbeat;
        return age > elector.timings.tickMs * 2 ? age : 0;
      } catch {
        return null;
      }
    },
  };
}

/** The no_leader rule: nobody has led for twice takeover_after. */
export function noLeader(leaderlessMs: number | null, takeoverAfterMs: number): boolean {
  return leaderlessMs !== null && leaderlessMs >= 2 * takeoverAfterMs;
}
