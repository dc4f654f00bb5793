import pg from "pg";
import { isHot } from "./hot-statements.js";

/**
 * The pg client Kassa's PostgreSQL pool uses (handed to the pool through its `Client` option, so
 * Kysely's Postgres dialect uses it unchanged). Two things differ from pg's own:
 *
 * - **Prepared statements.** The SQL texts registered with `Database.prepare`, or marked hot by a
 *   module (db/hot-statements.ts), go as named statements: parsed once per connection, then only
 *   bound and executed.
 * - **A transaction's `begin` travels with its first statement.** Kysely sends `begin` and waits
 *   for its answer before the first statement: a round trip that carries nothing. Here `begin` is
 *   answered at once and held; the first statement then goes behind it in the same write, the two
 *   ended by one Sync, so the server runs both and answers both in one round trip. A transaction
 *   that ends before any statement sends nothing at all. An error in the statement reaches its
 *   caller as before, inside the open transaction, which Kysely then rolls back.
 *   Each round trip costs both processes a wake-up; a purchase opens five transactions.
 */
export function kassaPgClient(names: Map<string, string>, preparing: boolean): typeof pg.Client {
  return class KassaPgClient extends pg.Client {
    /** The `begin` (or `start transaction ...`) held until the transaction's first statement. */
    private heldBegin: string | undefined;

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this forwards them all.
    override query(...args: any[]): any {
      const [text, values] = args;
      if (args.length !== 2 || typeof text !== "string" || !Array.isArray(values))
        // biome-ignore lint/suspicious/noExplicitAny: see above.
        return (super.query as (...a: any[]) => any)(...args);
      if (values.length === 0 && TRANSACTION_START.test(text) && this.heldBegin === undefined) {
        this.heldBegin = text;
        return Promise.resolve(emptyResult("BEGIN"));
      }
      const begin = this.heldBegin;
      this.heldBegin = undefined;
      if (begin !== undefined && values.length === 0 && TRANSACTION_END.test(text))
        return Promise.resolve(emptyResult(text.toUpperCase()));
      let name = names.get(text);
      // A text a module marked hot (db/hot-statements.ts) is named at its first run.
      if (!name && preparing && isHot(text)) {
        name = `kassa_${names.size + 1}`;
        names.set(text, name);
      }
      if (begin === undefined) return name ? super.query({ name, text, values }) : super.query(text, values);
      // A named statement not yet parsed on this connection goes after its own `begin`: the
      // begin's ParseComplete would otherwise mark it parsed before its own parse succeeded.
      if (name && !(name in parsedStatementsOf(this))) {
        const started = super.query(begin);
        return started.then(() => super.query({ name, text, values }));
      }
      return new Promise((resolve, reject) => {
        const query = new BeginThenQuery(
          begin,
          { text, values, name, queryMode: "extended" },
          (error, result) => (error ? reject(error) : resolve(result)),
        );
        super.query(query as unknown as pg.QueryConfig);
      });
    }
  };
}

const TRANSACTION_START = /^(begin|start transaction\b[a-z ]*)$/i;
const TRANSACTION_END = /^(commit|rollback)$/i;

function emptyResult(command: string) {
  return { command, rowCount: null, oid: 0, rows: [], fields: [] };
}

/** pg's per-connection record of the named statements it has parsed (not in its typings). */
function parsedStatementsOf(client: pg.Client): Record<string, string> {
  return (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
    .parsedStatements;
}

/** The parts of pg's protocol connection and Query that a query sent behind a `begin` uses. */
interface ProtocolConnection {
  stream: { cork(): void; uncork(): void };
  parse(query: { text: string }): void;
  bind(config: Record<string, never>): void;
  execute(config: Record<string, never>): void;
}
interface QueryInternals {
  submit(connection: ProtocolConnection): Error | null;
  handleCommandComplete(message: unknown, connection: ProtocolConnection): void;
}
/** pg's Query as this module subclasses it: its typings declare `submit` a property. */
const QueryBase = pg.Query as unknown as new (
  config: { text: string; values: unknown[]; name?: string; queryMode: "extended" },
  values: undefined,
  callback: (error: Error | undefined, result: pg.QueryResult) => void,
) => QueryInternals;

/**
 * A statement sent behind a transaction's `begin` in one write: Parse, Bind and Execute of the
 * `begin` (unnamed), then the statement's own messages and Sync. The server answers both at once;
 * the `begin`'s CommandComplete is the first one back and is not a result of the statement.
 */
class BeginThenQuery extends QueryBase {
  private beginAnswered = false;

  constructor(
    private readonly begin: string,
    config: { text: string; values: unknown[]; name?: string; queryMode: "extended" },
    callback: (error: Error | undefined, result: pg.QueryResult) => void,
  ) {
    super(config, undefined, callback);
  }

  override submit(connection: ProtocolConnection): Error | null {
    connection.stream.cork();
    try {
      connection.parse({ text: this.begin });
      connection.bind({});
      connection.execute({});
      return super.submit(connection);
    } finally {
      connection.stream.uncork();
    }
  }

  override handleCommandComplete(message: unknown, connection: ProtocolConnection): void {
    if (!this.beginAnswered) {
      this.beginAnswered = true;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}
