import pg from "pg";
import { isHot } from "./hot-statements.js";

/**
 * The pg client Kassa's PostgreSQL pool uses (handed to the pool through its `Client` option, so
 * Kysely's Postgres dialect uses it unchanged). Two things differ from pg's own:
 *
 * - **Prepared statements.** A statement with parameters that reads or writes rows (`select`,
 *   `insert`, `update`, `delete`, `with`) goes as a named statement from its second run in the
 *   process: parsed and planned once per connection, then only bound and executed. PostgreSQL's
 *   parse and plan of an unnamed statement cost more of its CPU than most of Kassa's statements
 *   take to run. The texts registered with `Database.prepare`, or marked hot by a module
 *   (db/hot-statements.ts), are named from their first run. Bounded: texts longer than
 *   {@link MAX_PREPARED_TEXT}, or beyond {@link MAX_PREPARED_TEXTS} texts in the process, go
 *   unnamed, as pg sends them; a connection keeps {@link MAX_PREPARED_PER_CONNECTION}
 *   statements at most, and closes the least recently used one (in the same write as the next
 *   statement) to parse another.
 *   A table that changes under a prepared statement so that its rows change shape (a column
 *   added under `select *`, a migration of a newer Kassa while this one runs) makes PostgreSQL
 *   refuse the statement ("cached plan must not change result type"): the connection then
 *   parses the text afresh under another name, and a statement outside a transaction is run
 *   again at once; inside one, the error reaches the caller and the transaction rolls back.
 *   A statement the server no longer has (`DEALLOCATE ALL`, `DISCARD ALL` run on the connection)
 *   is parsed again at its next run, and likewise sent again at once outside a transaction.
 * - **A transaction's `begin` travels with its first statement.** Kysely sends `begin` and waits
 *   for its answer before the first statement: a round trip that carries nothing. Here `begin` is
 *   answered at once and held; the first statement then goes behind it in the same write, the two
 *   ended by one Sync, so the server runs both and answers both in one round trip. A transaction
 *   that ends before any statement sends nothing at all. An error in the statement reaches its
 *   caller as before, inside the open transaction, which Kysely then rolls back.
 *   Each round trip costs both processes a wake-up; a purchase opens five transactions.
 *
 * - **A prepared statement's rows described once.** pg asks the server to describe every
 *   statement's rows at each run (a Describe, and a RowDescription back that pg turns into the
 *   result's fields and a parser per column). A named statement's rows keep their shape for as
 *   long as the connection keeps it (PostgreSQL refuses to run it otherwise: see above), so the
 *   connection keeps the fields and parsers of its first run after the parse and sends the
 *   later runs as Bind, Execute and Sync only. A statement parsed again (after a Close, a
 *   rename, `DEALLOCATE`) is described again at that run; one that returns no rows (an insert
 *   without `returning`) gets no RowDescription to keep and keeps its Describe.
 *
 * `names` maps a text to its statement name, shared by the pool's connections; `preparing`
 * false (`DATABASE_PREPARED_STATEMENTS=off`) sends every statement unnamed.
 */
export function kassaPgClient(names: Map<string, string>, preparing: boolean): typeof pg.Client {
  /** Texts run once so far: the second run names them. */
  const seenOnce = new Set<string>();

  /** The process-wide name of `text`, if it is to run as a named statement. */
  function nameOf(text: string, values: unknown[]): string | undefined {
    const name = names.get(text);
    if (name || !preparing) return name;
    // A text a module marked hot (db/hot-statements.ts) is named at its first run.
    if (!isHot(text)) {
      if (values.length === 0 || text.length > MAX_PREPARED_TEXT || !PREPARABLE.test(text)) return undefined;
      if (!seenOnce.has(text)) {
        if (seenOnce.size >= MAX_PREPARED_TEXTS * 4) seenOnce.clear();
        seenOnce.add(text);
        return undefined;
      }
      seenOnce.delete(text);
    }
    if (names.size >= MAX_PREPARED_TEXTS) return undefined;
    const named = `kassa_${names.size + 1}`;
    names.set(text, named);
    return named;
  }

  return class KassaPgClient extends pg.Client {
    /** The `begin` (or `start transaction ...`) held until the transaction's first statement. */
    private heldBegin: string | undefined;
    /** Statement names this connection keeps, least recently used first. */
    private readonly used = new Set<string>();
    /** Texts whose statement this connection parses afresh under another name (see above). */
    private readonly renamed = new Map<string, string>();
    private renames = 0;
    /** The rows' shape of each named statement this connection has run since its parse. */
    private readonly shapes = new Map<string, RowShape>();

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads; this forwards them all.
    override query(...args: any[]): any {
      const [text, values] = args;
      if (args.length !== 2 || typeof text !== "string" || !Array.isArray(values))
        // biome-ignore lint/suspicious/noExplicitAny: see above.
        return (super.query as (...a: any[]) => any)(...args);
      return this.send(text, values, false);
    }

    private send(text: string, values: unknown[], retried: boolean): Promise<pg.QueryResult> {
      if (values.length === 0 && TRANSACTION_START.test(text) && this.heldBegin === undefined) {
        this.heldBegin = text;
        return Promise.resolve(emptyResult("BEGIN"));
      }
      const begin = this.heldBegin;
      this.heldBegin = undefined;
      if (begin !== undefined && values.length === 0 && TRANSACTION_END.test(text))
        return Promise.resolve(emptyResult(text.toUpperCase()));
      const name = this.connectionName(text, values);
      const close = name ? this.evicted(name) : undefined;
      const sent = this.sendNamed(begin, { text, values, name, queryMode: "extended" }, close);
      if (!name) return sent;
      const outside = begin === undefined && this.getTransactionStatus() === "I";
      return sent.catch((error: unknown) => {
        if (resultTypeChanged(error)) {
          this.renames += 1;
          this.renamed.set(text, `${name}_r${this.renames}`);
        }
        // Gone from the server (`DEALLOCATE ALL`, `DISCARD ALL`): parsed again at its next run.
        else if (statementGone(error)) delete parsedStatementsOf(this)[name];
        else throw error;
        if (outside && !retried) return this.send(text, values, true);
        throw error;
      });
    }

    /** The name `text` runs under on this connection, if any, made the most recently used. */
    private connectionName(text: string, values: unknown[]): string | undefined {
      const name = this.renamed.get(text) ?? nameOf(text, values);
      if (!name) return undefined;
      this.used.delete(name);
      this.used.add(name);
      return name;
    }

    /**
     * The statement to close on the server before `name` is parsed, when the connection keeps its
     * most: the least recently used one, forgotten here at once (its Close goes in the same write).
     */
    private evicted(name: string): string | undefined {
      if (this.used.size <= MAX_PREPARED_PER_CONNECTION || name in parsedStatementsOf(this)) return undefined;
      const [oldest] = this.used;
      if (oldest === undefined || oldest === name) return undefined;
      this.used.delete(oldest);
      this.shapes.delete(oldest);
      delete parsedStatementsOf(this)[oldest];
      return oldest;
    }

    private sendNamed(begin: string | undefined, config: QueryConfig, close: string | undefined) {
      const { name, text, values } = config;
      if (begin === undefined && close === undefined && !name) return super.query(text, values);
      // A named statement not yet parsed on this connection goes after its own `begin`: the
      // begin's ParseComplete would otherwise mark it parsed before its own parse succeeded.
      if (begin !== undefined && name && !(name in parsedStatementsOf(this)))
        return super.query(begin).then(() => this.prefixed(undefined, config, close));
      return this.prefixed(begin, config, close);
    }

    /** `config` behind a held `begin` and a Close of an evicted statement, if any, in one write. */
    private prefixed(begin: string | undefined, config: QueryConfig, close: string | undefined) {
      return new Promise<pg.QueryResult>((resolve, reject) => {
        const query = new KassaQuery(begin, close, this.shapes, config, (error, result) =>
          error ? reject(error) : resolve(result),
        );
        super.query(query as unknown as pg.QueryConfig);
      });
    }
  };
}

/** Statements that read or write rows: the ones worth preparing. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\s/i;
/** Longer texts (a batch of a thousand rows' values) are not kept as prepared statements. */
export const MAX_PREPARED_TEXT = 16_384;
/** Named statements one connection keeps at most: the least recently used one is closed for another. */
export const MAX_PREPARED_PER_CONNECTION = 128;
/** Texts the process names at most. */
export const MAX_PREPARED_TEXTS = 2_000;

/** PostgreSQL's answer to a statement name it no longer has (SQLSTATE 26000). */
function statementGone(error: unknown): boolean {
  return error instanceof Error && (error as { code?: string }).code === "26000";
}

/** PostgreSQL's refusal of a prepared statement whose rows changed shape under it. */
function resultTypeChanged(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: string }).code === "0A000" &&
    /cached plan must not change result type/.test(error.message)
  );
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
  close(target: { type: "S"; name: string }): void;
  parse(query: { text: string }): void;
  bind(config: Record<string, never>): void;
  execute(config: Record<string, never>): void;
  describe(target: { type: "P"; name: string }): void;
  parsedStatements: Record<string, string>;
}
/** What pg's Result keeps of a RowDescription (its fields, a parser each, an empty row). */
interface ResultShape {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: Record<string, null> | undefined;
  _types: unknown;
  rowAsArray: boolean;
}
interface QueryInternals {
  name: string | undefined;
  callback: unknown;
  _result: ResultShape;
  _accumulateRows: unknown;
  listeners(event: "row"): unknown[];
  submit(connection: ProtocolConnection): Error | null;
  prepare(connection: ProtocolConnection): void;
  handleRowDescription(message: unknown): void;
  handleCommandComplete(message: unknown, connection: ProtocolConnection): void;
}
/** A named statement's rows as its first run after its parse described them. */
interface RowShape {
  fields: unknown[];
  parsers: unknown[];
  empty: Record<string, null>;
  /** The type parsers (the client's) the parsers came from. */
  types: unknown;
}
/** A statement as this module hands it to pg's Query. */
type QueryConfig = { text: string; values: unknown[]; name: string | undefined; queryMode: "extended" };

/** pg's Query as this module subclasses it: its typings declare `submit` a property. */
const QueryBase = pg.Query as unknown as new (
  config: QueryConfig,
  values: undefined,
  callback: (error: Error | undefined, result: pg.QueryResult) => void,
) => QueryInternals;

/**
 * A statement sent in one write behind what goes before it: the Close of a prepared statement
 * the connection evicts (its CloseComplete is ignored by pg), and a transaction's `begin` (Parse,
 * Bind and Execute, unnamed); then the statement's own messages and Sync. The server answers all
 * at once; the `begin`'s CommandComplete is the first one back and is not a result of the
 * statement. A named statement the connection has parsed and run before goes without its
 * Describe, its rows read with the fields and parsers of that run (`shapes`); its first run after
 * a parse records them.
 */
class KassaQuery extends QueryBase {
  private beginAnswered: boolean;

  constructor(
    private readonly begin: string | undefined,
    private readonly close: string | undefined,
    private readonly shapes: Map<string, RowShape>,
    config: QueryConfig,
    callback: (error: Error | undefined, result: pg.QueryResult) => void,
  ) {
    super(config, undefined, callback);
    this.beginAnswered = begin === undefined;
  }

  override submit(connection: ProtocolConnection): Error | null {
    connection.stream.cork();
    try {
      if (this.close !== undefined) connection.close({ type: "S", name: this.close });
      if (this.begin !== undefined) {
        connection.parse({ text: this.begin });
        connection.bind({});
        connection.execute({});
      }
      return super.submit(connection);
    } finally {
      connection.stream.uncork();
    }
  }

  override prepare(connection: ProtocolConnection): void {
    const name = this.name;
    const shape = name && name in connection.parsedStatements ? this.shapes.get(name) : undefined;
    if (name && !shape) this.shapes.delete(name);
    if (!shape || !this.sameParsers(shape)) {
      super.prepare(connection);
      return;
    }
    // pg's own Bind, Execute and Sync, without the Describe between them.
    super.prepare(Object.create(connection, { describe: { value: () => {} } }) as ProtocolConnection);
    const result = this._result;
    result.fields = shape.fields;
    result._parsers = shape.parsers;
    result._prebuiltEmptyResultObject = shape.empty;
    this._accumulateRows = this.callback || this.listeners("row").length === 0;
  }

  override handleRowDescription(message: unknown): void {
    super.handleRowDescription(message);
    const result = this._result;
    if (this.name && !result.rowAsArray && result._parsers && result._prebuiltEmptyResultObject)
      this.shapes.set(this.name, {
        fields: result.fields,
        parsers: result._parsers,
        empty: result._prebuiltEmptyResultObject,
        types: result._types,
      });
  }

  /** Rows as objects, read with the type parsers the shape's were taken from (the client's). */
  private sameParsers(shape: RowShape): boolean {
    return !this._result.rowAsArray && this._result._types === shape.types;
  }

  override handleCommandComplete(message: unknown, connection: ProtocolConnection): void {
    if (!this.beginAnswered) {
      this.beginAnswered = true;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}
