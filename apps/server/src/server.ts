import type { AddressInfo } from "node:net";
import path from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { createApp } from "./app.js";
import { type AuthDeps, createAuth, type KassaAuth } from "./auth/auth.js";
import { createAuthHandler } from "./auth/handler.js";
import { createMembershipReader, createSessionReader } from "./auth/session-reader.js";
import type { KassaConfig } from "./config.js";
import { type Database, openDatabase } from "./db/database.js";
import { migrate } from "./db/migrations.js";
import { type Clock, oneClock, systemClock } from "./kit/clock.js";
import { type JobDefinition, type JobWorker, startJobWorker } from "./kit/jobs/index.js";
import { createLogger, type Logger } from "./kit/logger.js";
import { openRateLimitStore, type RateLimitStore } from "./kit/rate-limit.js";
import { resolveAuthSecret } from "./kit/secret.js";
import { createMailer, type Mailer } from "./mail/mailer.js";
import { benefitGrantJobs, benefitGrantsSink } from "./modules/benefit-grants/index.js";
import { configureBenefitTargets } from "./modules/benefits/index.js";
import { checkoutPaymentListener, startCheckoutReconciler } from "./modules/checkouts/index.js";
import { configureOrphanClaims, customerMeterJobs } from "./modules/customer-meters/index.js";
import {
  configureIngestGroups,
  eventJobs,
  orphanClaimStatement,
  startEventPartitioner,
  takeOrphans,
} from "./modules/events/index.js";
import { createUrlSigner, diskStorage, loadS3Storage, startUploadSweeper } from "./modules/files/index.js";
import { flushLicenseKeyValidations, forgetOrganizationLicenseKeys } from "./modules/license-keys/index.js";
import { createConnections } from "./modules/oauth-accounts/index.js";
import { orderMailJobs, orderMailsSink } from "./modules/order-mails/index.js";
import { forgetOrganizationTokens } from "./modules/organization-access-tokens/index.js";
import { createPayments, type Payments, paymentJobs } from "./modules/payments/index.js";
import { configureCatalogCache } from "./modules/products/index.js";
import { refundJobs, refundPaymentListener } from "./modules/refunds/index.js";
import {
  type LifecycleDeps,
  lifecycleJobs,
  startSubscriptionScheduler,
} from "./modules/subscription-lifecycle/index.js";
import { OrganizationRateTaxCalculator } from "./modules/tax/index.js";
import { createTestClocks, type TestClocks, testClockJobs } from "./modules/test-clocks/index.js";
import { configureWebhookTargets, webhookEventSink, webhookJobs } from "./modules/webhooks/index.js";

export interface KassaServer {
  url: string;
  port: number;
  database: Database;
  auth: KassaAuth;
  mailer: Mailer;
  /** The job worker of this process (absent with JOB_WORKER=off). */
  jobs: JobWorker | undefined;
  /** The payment processor (sandbox or Stripe) and its parts. */
  payments: Payments;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  clock?: Clock;
  password?: AuthDeps["password"];
}

/**
 * Everything a server is made of except its socket: the migrated database, Better Auth, the
 * background work and the HTTP application. `startKassa` listens with it; the route tests call
 * `app.fetch` in their own process (apps/server/test/support/in-process.ts).
 */
export interface Kassa {
  app: ReturnType<typeof createApp>;
  database: Database;
  auth: KassaAuth;
  mailer: Mailer;
  /** The job worker of this process (absent with JOB_WORKER=off). */
  jobs: JobWorker | undefined;
  /** The payment processor (sandbox or Stripe) and its parts. */
  payments: Payments;
  /** What `/api/auth/ok` answers: false (503) until start-up has finished, and while stopping. */
  setReady(ready: boolean): void;
  /** Stops the background work and the mailer, then closes the database. */
  close(): Promise<void>;
  /** After a failed start: stops the background work at once and closes the database. */
  abort(): Promise<void>;
}

/** Opens the database, migrates it, builds the app and listens. The one composition root. */
export async function startKassa(config: KassaConfig, options: StartOptions = {}): Promise<KassaServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const kassa = await createKassa(config, { ...options, logger });
  const { database, auth, mailer, jobs, payments } = kassa;
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: kassa.app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
      s.once("error", reject);
    });
  } catch (error) {
    await kassa.abort();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  kassa.setReady(true);
  logger.info(`Kassa listening on ${config.baseURL} (port ${port}, database ${database.description})`, {
    mail: mailer.mode === "smtp" ? "smtp" : "development mailbox at /api/dev/mailbox",
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      kassa.setReady(false);
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          logger.warn("connections still open 10 s after the shutdown began: closing them");
          if ("closeAllConnections" in server) server.closeAllConnections();
        }, 10_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        if ("closeIdleConnections" in server) server.closeIdleConnections();
      });
      await kassa.close();
    })();
    return closing;
  };
  return { url: config.baseURL, port, database, auth, mailer, jobs, payments, close };
}

/** Opens the database, migrates it and builds the app, without listening (see `Kassa`). */
export async function createKassa(config: KassaConfig, options: StartOptions = {}): Promise<Kassa> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const secret = resolveAuthSecret(config.authSecret, config.dataDir);
  const database = await openDatabase(config, logger);
  configureCatalogCache(config.catalogCacheMb);
  configureIngestGroups(config.usage.ingestGroupInFlight);
  configureOrphanClaims({ take: takeOrphans, statement: orphanClaimStatement });
  configureWebhookTargets({ refusePrivate: config.webhooks.refusePrivate });
  configureBenefitTargets(config.benefitTargets);
  let ready = false;
  let jobs: JobWorker | undefined;
  let uploadSweeper: { stop(): Promise<void> } | undefined;
  let reconciler: { stop(): Promise<void> } | undefined;
  let scheduler: { stop(): Promise<void> } | undefined;
  let partitioner: { stop(): Promise<void> } | undefined;
  let testClocks: TestClocks | undefined;
  let rateLimitStore: RateLimitStore | undefined;
  const abort = async () => {
    await rateLimitStore?.close();
    await jobs?.stop(0);
    await uploadSweeper?.stop();
    await reconciler?.stop();
    await scheduler?.stop();
    await partitioner?.stop();
    await testClocks?.close();
    await database.close().catch(() => {});
  };
  try {
    // Built before the migrations (Better Auth's options, which the migrations read, need it),
    // but it delivers nothing until start() below.
    const mailer = createMailer({
      db: database.db,
      smtpUrl: config.mail.smtpUrl,
      from: config.mail.from,
      clock,
      logger,
    });
    // Counters of every limit, /api/auth's and /v1's (RATE_LIMIT_STORE; docs/decisions.md).
    rateLimitStore = config.rateLimit
      ? await openRateLimitStore({
          kind: config.rateLimitStore,
          db: database.db,
          redisUrl: config.redisUrl,
          redisKeyPrefix: config.redisKeyPrefix,
          logger,
        })
      : undefined;
    if (rateLimitStore) logger.info(`rate limits counted in ${rateLimitStore.kind}`);
    const { auth, options: authOptions } = createAuth({
      config,
      secret,
      db: database.db,
      mailer,
      rateLimitStore,
      logger,
      onOrganizationDeleted: (organizationId) => {
        forgetOrganizationTokens(organizationId);
        forgetOrganizationLicenseKeys(organizationId);
      },
      ...(options.password ? { password: options.password } : {}),
    });
    await migrate(database, authOptions, logger);
    // Only now: the dispatcher reads kassa_mail, which the migrations create.
    mailer.start();
    const payments = createPayments({ config: config.payments, db: database.db, clock });
    if (config.production && payments.sandbox)
      logger.warn(
        "payments run on the sandbox processor: no real money moves (set STRIPE_SECRET_KEY to go live)",
      );

    // One tax calculator for every checkout path: the buyer's requests, processor events, reconciler.
    const tax = new OrganizationRateTaxCalculator(database.db);
    // On the sandbox each organization has a test clock; on Stripe every one has the real time.
    testClocks = payments.sandbox
      ? await createTestClocks({ db: database.db, clock, logger, listen: database.listen })
      : undefined;
    const clocks = testClocks ?? oneClock(clock);
    // Every write records its events here: the webhook outbox, and the grant engine's seam
    // (a change that moves what a customer is entitled to queues their `benefits.sync`,
    // and a checkout's paid order queues the buyer's confirmation mail).
    const events = orderMailsSink(benefitGrantsSink(webhookEventSink(clocks)));
    const signer = createUrlSigner(secret);
    // The GitHub and Discord accounts customers connect, and the platforms' clients.
    const connections = createConnections(config.connections, secret);
    // Renewals, dunning and cancellations.
    const lifecycle: LifecycleDeps = {
      signer,
      db: database.db,
      clock,
      clocks,
      events,
      processor: payments.processor,
      tax,
      mailer,
      baseURL: config.baseURL,
      logger,
      testClockConcurrency: config.subscriptions.testClockConcurrency,
      testClockLeaseMs: config.jobs.leaseMs,
    };
    // What settling a checkout outside a buyer's request needs (processor events, reconciler).
    const purchaseDeps = {
      db: database.db,
      events,
      env: { baseURL: config.baseURL, payments },
      tax,
      processor: payments.processor,
    };
    // biome-ignore lint/suspicious/noExplicitAny: definitions with different payload schemas.
    const definitions: JobDefinition<any>[] = [
      ...webhookJobs({
        mailer,
        baseURL: config.baseURL,
        timeoutMs: config.webhooks.timeoutMs,
        refusePrivate: config.webhooks.refusePrivate,
      }),
      ...paymentJobs({ listeners: [refundPaymentListener(events), checkoutPaymentListener(purchaseDeps)] }),
      ...refundJobs({ processor: payments.processor, events }),
      ...benefitGrantJobs({ clocks, events, connections }),
      ...lifecycleJobs(lifecycle),
      ...(testClocks ? testClockJobs({ clocks: testClocks, lifecycle, checkouts: purchaseDeps.env }) : []),
      ...orderMailJobs({ mailer, signer, baseURL: config.baseURL, clocks }),
      ...eventJobs({ clocks, events, quietMs: config.usage.stateDebounceMs }),
      ...customerMeterJobs({ clocks }),
    ];
    jobs = config.jobs.worker
      ? startJobWorker({
          db: database.db,
          clock,
          logger,
          definitions,
          concurrency: config.jobs.concurrency,
          prefetch: config.jobs.prefetch,
          pollIntervalMs: config.jobs.pollIntervalMs,
          leaseMs: config.jobs.leaseMs,
          backoff: config.jobs.backoff,
          listen: database.listen,
        })
      : undefined;

    const readSession = createSessionReader({
      auth,
      db: database.db,
      secret,
      prepare: (text) => database.prepare(text),
    });
    const readMembership = createMembershipReader({
      auth,
      db: database.db,
      secret,
      prepare: (text) => database.prepare(text),
      writeCount: database.writeCount,
    });
    const fileStorage = config.files.s3
      ? await loadS3Storage({ ...config.files.s3, stagingDir: path.resolve(config.files.dir) })
      : diskStorage(path.resolve(config.files.dir));
    // Background work runs where the job worker does: abandoned uploads are discarded there.
    uploadSweeper = config.jobs.worker
      ? startUploadSweeper({
          db: database.db,
          clock,
          logger,
          storage: fileStorage,
          uploadUrlTtlSeconds: config.files.uploadUrlTtlSeconds,
        })
      : undefined;
    // Interrupted purchases are finished where the job worker runs: at start and on a schedule.
    reconciler = config.jobs.worker
      ? startCheckoutReconciler(
          { ...purchaseDeps, clock, logger, afterMs: config.reconcile.afterMs },
          config.reconcile.intervalMs,
        )
      : undefined;
    // Renewals and dunning retries fall due where the job worker runs; their charges are jobs.
    scheduler = config.jobs.worker
      ? startSubscriptionScheduler(lifecycle, config.subscriptions.intervalMs, config.reconcile.afterMs)
      : undefined;
    // The events' monthly partitions are made ahead where the job worker runs (real time: a
    // test clock's months land in the default partition until the next run moves them).
    partitioner = config.jobs.worker ? startEventPartitioner({ db: database.db, clock, logger }) : undefined;
    const app = createApp({
      config,
      db: database.db,
      auth,
      mailer,
      logger,
      clock,
      isReady: () => ready,
      readSession,
      readMembership,
      authHandler: await createAuthHandler(auth),
      payments,
      tax,
      testClocks,
      lifecycle,
      events,
      connections,
      rateLimitStore,
      files: {
        storage: fileStorage,
        signer,
        baseURL: config.baseURL,
        uploadUrlTtlSeconds: config.files.uploadUrlTtlSeconds,
      },
    });
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        ready = false;
        await jobs?.stop();
        await uploadSweeper?.stop();
        await reconciler?.stop();
        await scheduler?.stop();
        await partitioner?.stop();
        await testClocks?.close();
        await mailer.close();
        await rateLimitStore?.close();
        // The license-key validations counted in memory (at most a second's), before the database goes.
        await flushLicenseKeyValidations(database.db).catch((error) =>
          logger.error("license-key validation counts lost at shutdown", { error: String(error) }),
        );
        await database.close();
        logger.info("Kassa stopped");
      })();
      return closing;
    };
    return {
      app,
      database,
      auth,
      mailer,
      jobs,
      payments,
      setReady: (value) => {
        ready = value;
      },
      close,
      abort,
    };
  } catch (error) {
    await abort();
    throw error;
  }
}
