/**
 * The yardstick of search quality (`npm run bench -- --only search`): six members of one
 * organization, each with a personal store of memories written as an assistant would keep them
 * (the spec's six categories, some without one; English and the member's own language), and
 * queries, each asked by one member, labelled with every memory of that member's store that
 * answers it. Other members' memories are never answers: they are the distractors a store that
 * leaked across users would return, and several are near-duplicates on purpose (the same ticket,
 * cluster, freeze, allergy, marathon).
 *
 * Written by hand, not generated, and not tuned to the analyzer: a query is what a person would
 * type, and its answers are what a person would want back, including memories in another
 * language or worded otherwise, which lexical search cannot find.
 *
 * Kinds of query:
 * - `keyword`: words taken from the memory as written;
 * - `identifier`: tickets, versions, error codes, emails, paths, hosts, typed as written or loosely;
 * - `multilingual`: French, German, Spanish with and without their accents, Russian in another
 *   case, Japanese and Chinese without spaces;
 * - `prefix`: the last word half typed, as someone still typing;
 * - `question`: a natural question, some of whose words are not in the memory;
 * - `paraphrase`: no content word shared with the answer: only meaning can find it.
 */
import type { Category } from '../../src/memory/memory.schemas.ts';

export const USERS = ['amira', 'jonas', 'lucia', 'kenji', 'olga', 'mei'] as const;
export type User = (typeof USERS)[number];

export const QUERY_KINDS = [
  'keyword',
  'identifier',
  'multilingual',
  'prefix',
  'question',
  'paraphrase',
] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

/** A memory of one member's store; `key` is `<user>/<name>`, stable across runs. */
export interface LabelledMemory {
  readonly key: string;
  readonly user: User;
  readonly category: Category | undefined;
  readonly content: string;
}

export interface LabelledQuery {
  readonly user: User;
  readonly kind: QueryKind;
  readonly q: string;
  /** Keys of every memory of `user`'s store that answers the query. */
  readonly answers: readonly string[];
}

type Entry = readonly [category: Category | null, content: string];

/** Each member's store, by the memory's name within it. */
const STORES: Record<User, Record<string, Entry>> = {
  amira: {
    role: [
      'identity',
      'Amira Haddad, senior backend engineer on the payments team at Northwind Labs.',
    ],
    office: [
      'identity',
      'Based in Lyon; works remotely three days a week and from the Part-Dieu office on Tuesdays and Thursdays.',
    ],
    languages: ['identity', 'Native French speaker, fluent in English and Arabic.'],
    'answer-language': [
      'preference',
      'Prefers answers in English, but code comments in French are fine.',
    ],
    'answer-style': [
      'preference',
      'Likes concise answers with the code sample first and the explanation after.',
    ],
    editor: ['preference', 'Uses Neovim with the LazyVim distribution; turns off AI suggestions.'],
    typescript: ['preference', 'Prefers TypeScript over JavaScript for every new service.'],
    reconciliation: [
      'project',
      'Owns the reconciliation service that matches Stripe payouts against the ledger every night.',
    ],
    'k8s-job': [
      'project',
      'Deploys the reconciliation job to the k8s cluster prod-eu-west-1 with Helm; it runs at 02:30 Paris time.',
    ],
    'ticket-4521': [
      'project',
      'TICKET-4521: duplicate payouts appear when Stripe retries a webhook; she is fixing it with an idempotency key.',
    ],
    'ticket-4512': [
      'project',
      'TICKET-4512 (closed) was about currency rounding in refunds, not about duplicates.',
    ],
    'ledger-pin': [
      'project',
      'The ledger service is pinned to v2.3.1 until the migration to double-entry accounts is done.',
    ],
    'ledger-next': [
      'project',
      'Ledger v2.4.0 adds multi-currency balances; the rollout is planned for March.',
    ],
    'mismatch-log': [
      'project',
      'Reconciliation mismatches are written to /var/log/recon/mismatch.log on the batch hosts.',
    ],
    'webhooks-config': [
      'project',
      'The payout webhook settings live in services/payments/config/webhooks.yaml.',
    ],
    econnreset: [
      'project',
      'The nightly job fails with ECONNRESET whenever the ledger database fails over.',
    ],
    manager: [
      'relationship',
      'Reports to Sofia Marchetti, engineering manager of the payments group.',
    ],
    'pairs-jonas': [
      'relationship',
      'Pairs with Jonas on fraud-scoring features for payouts every other Wednesday.',
    ],
    'oncall-backup': ['relationship', 'Her on-call backup is Olga from the SRE team.'],
    finance: [
      'relationship',
      'Works with Finance on month-end closing; her contact there is claire.dubois@northwind.example.',
    ],
    'recon-goal': [
      'goal',
      'Wants the payout reconciliation to finish in under 20 minutes by the end of Q2.',
    ],
    'aws-exam': [
      'goal',
      'Preparing for the AWS Solutions Architect Professional exam in the autumn.',
    ],
    talk: ['goal', 'Wants to give a talk about idempotency at the Lyon JS meetup.'],
    pci: ['constraint', 'Must never copy cardholder data into tickets or chat: PCI DSS scope.'],
    freeze: ['constraint', 'Production deploys are frozen from 20 December to 3 January.'],
    peanuts: [
      'constraint',
      'Allergic to peanuts; team lunches must avoid satay and peanut sauces.',
    ],
    coffee: ['preference', 'Takes her coffee as a noisette, never with sugar.'],
    'fr-home': [
      'identity',
      'Elle habite à Lyon, dans le quartier de la Croix-Rousse, depuis 2018.',
    ],
    'fr-meetings': ['preference', 'Préfère les réunions le matin ; jamais après 17 h le vendredi.'],
    'fr-spanish': ['goal', "Veut apprendre l'espagnol avant son voyage à Séville en mai."],
    'fr-sister': ['relationship', 'Sa sœur Leïla est pédiatre à Marseille.'],
    padel: ['preference', 'Plays padel on Sunday mornings.'],
    adr: [
      'project',
      'Writes architecture decision records in docs/adr/, numbered like 0007-idempotency-keys.md.',
    ],
    'pr-size': ['preference', 'Wants pull requests under 400 lines; splits bigger changes.'],
    'friday-school': [
      'constraint',
      'Cannot attend meetings on Friday afternoons: she picks up her son from school.',
    ],
    son: ['relationship', 'Has a son, Yanis, who is seven.'],
    studies: ['identity', 'Studied computer science at INSA Lyon.'],
    fastify: [
      'project',
      'Migrating the payments API from Express to Fastify; half of the routes are done.',
    ],
    'http-409': [
      'project',
      'The payments API answers HTTP 409 when an idempotency key is reused with a different body.',
    ],
    'pager-goal': ['goal', 'Wants to halve the pager alerts of the payments team this year.'],
    postgres: [
      'preference',
      'Prefers PostgreSQL; finds MongoDB hard to reason about when money is involved.',
    ],
    'coffee-machine': [
      null,
      'Mentioned that the coffee machine on the third floor is broken again.',
    ],
    'lock-timeout': [
      'project',
      'Error E_LEDGER_LOCK_TIMEOUT means that two reconciliation runs overlapped.',
    ],
    reading: [
      'preference',
      'Reads technical books on an e-reader; currently Designing Data-Intensive Applications.',
    ],
    'dba-review': [
      'constraint',
      'Every schema migration must be reviewed by the DBA group before it is merged.',
    ],
    'half-marathon': ['goal', 'Training for the Lyon half-marathon in October.'],
    notes: ['preference', 'Takes notes in Obsidian, one vault per project.'],
    mentoring: ['relationship', 'Mentors two junior engineers, Hugo and Priya.'],
    'stripe-version': [
      'project',
      'The payments service is pinned to the Stripe API version 2024-06-20.',
    ],
    pronouns: ['identity', 'Uses she/her pronouns.'],
  },

  jonas: {
    role: ['identity', 'Jonas Becker, data scientist on the fraud detection team.'],
    home: ['identity', 'Lives in Berlin-Kreuzberg with his partner Lena and their dog Motte.'],
    languages: ['identity', 'German native speaker; writes English at work.'],
    'de-answers': [
      'preference',
      'Möchte Antworten auf Deutsch, wenn die Frage auf Deutsch gestellt wird.',
    ],
    python: [
      'preference',
      'Prefers Python with type hints; uses Polars instead of pandas for anything over a million rows.',
    ],
    notebooks: [
      'preference',
      'Explores in JupyterLab but insists that production code lives in plain modules.',
    ],
    model: [
      'project',
      'Builds the fraud-scoring model (gradient boosting with LightGBM) that scores every payout before it is sent.',
    ],
    serving: [
      'project',
      'The scoring model is served from the ml-serving namespace of the k8s cluster prod-eu-central-1.',
    ],
    'feature-store': ['project', 'Feature store: Feast, with the offline store in BigQuery.'],
    'ticket-3307': [
      'project',
      'TICKET-3307: the false positive rate doubled for Spanish merchants after the September release.',
    ],
    'model-versions': [
      'project',
      'Model fraud-gbm v1.8.2 is in production; v1.9.0 runs in shadow mode.',
    ],
    'training-data': [
      'project',
      'Training data lives in gs://nw-fraud-training/2024/, partitioned by day.',
    ],
    'eval-notebook': [
      'project',
      'The evaluation notebooks are in notebooks/eval/precision_recall.ipynb.',
    ],
    oom: [
      'project',
      'The nightly feature job is OOMKilled when more than 30 days are backfilled at once.',
    ],
    'pairs-amira': [
      'relationship',
      'Pairs with Amira on fraud features for payouts every other Wednesday.',
    ],
    manager: ['relationship', 'His manager is Dr. Katrin Vogel, head of data science.'],
    dublin: [
      'relationship',
      "Works closely with the risk analysts in Dublin, mostly with Siobhan O'Neill.",
    ],
    'realtime-goal': [
      'goal',
      'Wants to move fraud scoring from nightly batches to real-time scoring under 50 ms.',
    ],
    rust: ['goal', 'Learning Rust to rewrite the hot path of feature extraction.'],
    paper: ['goal', 'Plans to publish a paper on drift detection at a KDD workshop.'],
    gdpr: [
      'constraint',
      'Must not train on data from customers who opted out of analytics (GDPR Art. 21).',
    ],
    'gpu-budget': [
      'constraint',
      'GPU budget is capped at 2,000 euros per month; ask before launching large jobs.',
    ],
    vegetarian: ['constraint', 'Vegetarian; does not eat fish either.'],
    plots: [
      'preference',
      'Prefers matplotlib plots in the seaborn-whitegrid style, and no 3D charts.',
    ],
    latex: ['preference', 'Likes explanations with the math written out in LaTeX.'],
    'de-tea': ['preference', 'Trinkt morgens grünen Tee, nachmittags Mate.'],
    'de-study': ['identity', 'Hat an der Technischen Universität München Mathematik studiert.'],
    'de-bike': ['goal', 'Will im Sommer mit dem Fahrrad von Berlin nach Kopenhagen fahren.'],
    'de-sister': ['relationship', 'Seine Schwester Jana wohnt in Hamburg und arbeitet als Ärztin.'],
    'de-mornings': ['constraint', 'Keine Termine vor 10 Uhr, weil er morgens mit dem Hund läuft.'],
    mlflow: ['project', 'Tracks experiments in MLflow at mlflow.internal.northwind.example.'],
    retraining: [
      'project',
      'Retraining starts when the population stability index of any top-20 feature exceeds 0.2.',
    ],
    chess: ['preference', 'Plays chess online in the evenings, rated about 1800 on Lichess.'],
    'rate-limit': [
      'project',
      'The scoring API returns error FRD-429 when the per-merchant rate limit is hit.',
    ],
    'dark-mode': ['preference', 'Wants dark mode in every tool.'],
    'label-delay': [
      'project',
      'Fraud labels arrive with a 45-day delay, because chargebacks take that long.',
    ],
    pronouns: ['identity', 'Uses he/him pronouns.'],
    'written-proposals': [
      'preference',
      'Dislikes long meetings; prefers written proposals in Google Docs.',
    ],
    'review-goal': [
      'goal',
      'Wants to cut manual review volume by 30% without raising fraud losses.',
    ],
    student: ['relationship', 'Co-supervises Tobias, a master’s student from Humboldt University.'],
    ramen: [null, 'Asked about good ramen places near Alexanderplatz.'],
    mcc: ['project', 'Merchant category codes are mapped in data/mcc_mapping.csv.'],
    penicillin: ['constraint', 'Allergic to penicillin.'],
    poetry: ['preference', 'Uses Poetry for dependency management and pins every version.'],
    backfill: ['project', 'The k8s CronJob feature-backfill runs at 03:00 UTC every day.'],
    marathon: ['goal', 'Running the Berlin Marathon in September, aiming for under 3:30.'],
    partner: ['relationship', 'Lena, his partner, is a UX researcher at another company.'],
    shadow: [
      'project',
      'Shadow mode writes the v1.9.0 and v1.8.2 scores side by side to the table fraud.shadow_scores.',
    ],
    podcasts: ['preference', 'Listens to economics podcasts on his commute.'],
    'model-review': [
      'project',
      'Holds the weekly model review of the fraud team on Thursdays at 14:00.',
    ],
  },

  lucia: {
    role: ['identity', 'Lucía Fernández, product manager for the merchant dashboard.'],
    home: ['identity', 'Lives in Madrid, in Chamberí; originally from Valencia.'],
    languages: ['identity', 'Spanish native speaker who also speaks Portuguese.'],
    'es-answers': [
      'preference',
      'Prefiere que las respuestas sean en español cuando escribe en español.',
    ],
    summaries: ['preference', 'Wants bullet-point summaries with the recommendation at the top.'],
    'roadmap-format': [
      'preference',
      'Likes roadmaps as Now / Next / Later columns, not as Gantt charts.',
    ],
    redesign: [
      'project',
      'Leads the redesign of the payouts page in the merchant dashboard, launching in Q3.',
    ],
    'ticket-4521': [
      'project',
      'TICKET-4521 blocks her payouts page launch: merchants see duplicate payouts.',
    ],
    'tracking-plan': [
      'project',
      'The analytics events of the dashboard are defined in tracking-plan.md in the product repo.',
    ],
    beta: [
      'project',
      'Runs a beta with 40 merchants; feedback is collected in the #payouts-beta Slack channel.',
    ],
    release: [
      'project',
      'The merchant dashboard is on release v5.12.0; v5.13 ships the new export button.',
    ],
    nps: ['project', 'The dashboard scored an NPS of 31 in the last survey.'],
    'works-with': [
      'relationship',
      "Works with Amira's team on payouts and with Mei from design on the new layout.",
    ],
    manager: ['relationship', 'Reports to Daniel Okafor, VP of Product.'],
    contact: [
      'relationship',
      'Her main contact at the customer Tiendas Sol is Marta Ruiz (marta.ruiz@tiendassol.example).',
    ],
    'nps-goal': ['goal', 'Wants the dashboard to reach an NPS of 40 by the end of the year.'],
    marathon: ['goal', 'Training for the Madrid marathon in April; runs four times a week.'],
    'es-guitar': ['goal', 'Quiere aprender a tocar la guitarra flamenca este año.'],
    career: ['goal', 'Aims to become a group product manager within two years.'],
    'roadmap-legal': [
      'constraint',
      'Cannot share the roadmap with merchants before legal has reviewed it.',
    ],
    lactose: ['constraint', 'Lactose intolerant; asks for oat milk.'],
    'es-june': [
      'constraint',
      'No puede viajar la última semana de junio porque su hermano se casa en Sevilla.',
    ],
    padel: ['preference', 'Plays padel with friends on Saturdays in Chamberí.'],
    'es-paella': ['preference', 'Le encanta la paella de su abuela, pero odia el cilantro.'],
    'es-study': ['identity', 'Estudió Administración de Empresas en la Universidad Complutense.'],
    'es-partner': ['relationship', 'Su pareja, Álvaro, es arquitecto.'],
    amplitude: [
      'project',
      "Uses Amplitude for product analytics; the payouts funnel is the chart 'Payouts v2'.",
    ],
    prd: ['project', "Writes PRDs in Notion with the team's one-page template."],
    async: ['preference', 'Prefers async updates to status meetings.'],
    interviews: ['goal', 'Wants to run user interviews with 10 merchants before the Q3 planning.'],
    export: ['project', 'The export button must support CSV and XLSX; PDF was cut from the scope.'],
    'ticket-5102': [
      'project',
      'Merchants asked for payout notifications by SMS, tracked as TICKET-5102.',
    ],
    'beta-budget': ['constraint', 'The budget for beta incentives is 2,000 euros.'],
    figma: ['preference', 'Gives design feedback in Figma comments rather than by email.'],
    'real-examples': ['preference', 'Likes examples from real merchants, not made-up personas.'],
    mentor: [
      'relationship',
      'Mentored by Sofia Marchetti, who was her manager at a previous company.',
    ],
    pronouns: ['identity', 'Uses she/her pronouns.'],
    niece: [null, 'Was looking for a birthday present for her niece.'],
    'error-page': [
      'project',
      'The error page of the dashboard shows the code DSH-503 when the payouts API is down.',
    ],
    'es-marathon': ['goal', 'Quiere correr la maratón de Madrid en menos de cuatro horas.'],
    a11y: [
      'project',
      'An accessibility audit found contrast problems in the payouts table; the fix is planned for v5.13.',
    ],
    'deep-work': ['preference', 'Morning person: blocks 8 to 10 every day for deep work.'],
    'evening-meetings': ['constraint', 'Works on CET; no meetings after 18:00 Madrid time.'],
    competitors: [
      'project',
      'The competitor analysis of the Adyen and Mollie dashboards is in the shared folder Product/Research/2024.',
    ],
    'one-on-one': ['relationship', 'Has a weekly 1:1 with Daniel on Mondays.'],
    churn: ['goal', 'Wants to cut dashboard churn among small merchants by 15%.'],
    i18n: ['project', 'The copy strings of the dashboard are in web/src/i18n/es.json.'],
    coffee: ['preference', 'Drinks café con leche, made with oat milk.'],
    'es-survey': ['project', 'La encuesta de satisfacción se envía el primer lunes de cada mes.'],
    'no-dates': ['constraint', 'Never promises delivery dates to merchants in writing.'],
  },

  kenji: {
    role: ['identity', 'Kenji Sato, iOS developer of the Northwind merchant app.'],
    home: ['identity', 'Lives in Tokyo, in Setagaya, and commutes on the Odakyu line.'],
    'ja-home': ['identity', '東京の世田谷区に住んでいる。'],
    swift: ['preference', 'Writes Swift with SwiftUI and avoids Storyboards.'],
    'answer-language': [
      'preference',
      'Prefers answers in English, with Japanese terms kept as they are.',
    ],
    'ja-sushi': ['preference', '寿司が大好きで、特にサーモンが好き。'],
    'ja-surf': ['preference', '週末は鎌倉でサーフィンをしている。'],
    payouts: [
      'project',
      "Owns the payouts screen of the iOS app, which mirrors Lucía's dashboard redesign.",
    ],
    version: [
      'project',
      'The iOS app is at version 3.8.1 in the App Store; 3.9.0 is in TestFlight.',
    ],
    crash: [
      'project',
      'Crash reports go to the Sentry project merchant-ios; the top crash is EXC_BAD_ACCESS in PayoutListView.',
    ],
    'ticket-4388': ['project', 'TICKET-4388: push notifications arrive twice on iOS 17.'],
    fastlane: ['project', 'Builds with Fastlane; the beta lane is `fastlane ios beta`.'],
    networking: [
      'project',
      'The networking layer of the app is in Sources/Networking/APIClient.swift.',
    ],
    localization: ['project', 'Japanese strings are in Resources/ja.lproj/Localizable.strings.'],
    'design-system': ['relationship', 'Works with Mei on the design system of the app.'],
    manager: ['relationship', 'His manager is Hiroshi Tanaka, head of mobile.'],
    'ja-wife': ['relationship', '妻の由美は看護師として働いている。'],
    'ship-goal': [
      'goal',
      'Wants to ship the payouts screen in the app before the dashboard launch.',
    ],
    english: ['goal', 'Improving his English for conference talks, with a lesson every Tuesday.'],
    'ja-marathon': ['goal', '来年、京都マラソンに出たい。'],
    'privacy-review': [
      'constraint',
      'No third-party analytics SDK may go into the app without a privacy review.',
    ],
    'min-ios': ['constraint', 'The oldest supported system is iOS 16.'],
    'ja-friday': ['constraint', '金曜日の夜は会議に出られない。'],
    reviews: ['preference', 'Prefers short code reviews with concrete suggestions.'],
    'ja-matcha': ['preference', 'コーヒーよりも抹茶ラテが好き。'],
    'ja-origin': ['identity', '大阪出身で、大学は京都大学。'],
    'dynamic-type': [
      'project',
      'The payouts screen must support Dynamic Type up to the XXXL size.',
    ],
    spm: ['project', 'Uses Swift Package Manager only; no CocoaPods.'],
    'ja-figma': ['project', '決済画面のデザインはFigmaの「Payouts iOS」ファイルにある。'],
    'launch-time': ['goal', 'Wants the app to launch in under 400 ms on an iPhone 12.'],
    xcode: ['preference', 'Uses Xcode 15 and a split keyboard.'],
    shellfish: ['constraint', 'Shellfish allergy: avoid shrimp and crab.'],
    ramen: [null, 'Asked for a good ramen shop in Shinjuku.'],
    'app-review': ['project', 'App Review rejected 3.8.0 under guideline 5.1.1 (data collection).'],
    'session-error': ['project', 'The app shows error APP-401 when the session token has expired.'],
    'pairs-amira': ['relationship', 'Pairs with Amira on the payouts API contract.'],
    'ja-bullets': ['preference', '説明は短く、箇条書きで。'],
    pronouns: ['identity', 'Uses he/him pronouns.'],
    'ja-book': ['goal', '今年中にSwiftUIの本を読み終えたい。'],
    'feature-flag': [
      'project',
      'Feature flags come from LaunchDarkly; the payouts flag is ios-payouts-v2.',
    ],
    music: ['preference', 'Listens to city pop while coding.'],
    'ja-push': ['project', 'プッシュ通知が二重に届く不具合を調査中。'],
    daughter: ['relationship', 'Has a daughter, Hana, who is three.'],
    'time-zone': ['constraint', 'Works on JST; overlaps with Europe only between 16:00 and 18:00.'],
    'swift-6': ['goal', 'Wants to move the app to Swift 6 strict concurrency checking this year.'],
    'ja-cafe': ['preference', '東京タワーの近くのカフェでよく仕事をする。'],
    'build-number': [
      'project',
      'Build numbers follow the scheme YYYYMMDD.N, for example 20241015.2.',
    ],
    previews: ['preference', 'Likes a SwiftUI preview in every example.'],
  },

  olga: {
    role: ['identity', 'Olga Ivanova, site reliability engineer on the platform team.'],
    home: ['identity', 'Lives in Tallinn; grew up in Saint Petersburg.'],
    'ru-languages': ['identity', 'Родной язык — русский, по-эстонски говорит свободно.'],
    'ru-answers': ['preference', 'Предпочитает ответы на русском, если вопрос задан по-русски.'],
    commands: ['preference', 'Wants commands she can paste, with every flag spelled out in full.'],
    clusters: [
      'project',
      'Runs the k8s clusters prod-eu-west-1 and prod-eu-central-1 with Terraform and Argo CD.',
    ],
    tfstate: [
      'project',
      'The production Terraform state is in s3://nw-tfstate/prod/terraform.tfstate.',
    ],
    upgrade: ['project', 'Upgrading the clusters from Kubernetes 1.28 to 1.30; staging is done.'],
    incident: [
      'project',
      'INC-2291: the ingress controller dropped connections with HTTP 502 during the last node rotation.',
    ],
    patroni: [
      'project',
      'PostgreSQL 16 runs on Patroni with three nodes; a failover takes about 30 seconds.',
    ],
    alerts: ['project', 'Alert rules live in monitoring/prometheus/rules/payments.yml.'],
    grafana: [
      'project',
      'The SRE dashboards are in the folder SRE at grafana.internal.northwind.example.',
    ],
    pager: ['project', 'The pager rotation is the PagerDuty schedule PD-PLATFORM-PRIMARY.'],
    runbook: [
      'project',
      'The runbook for ECONNRESET errors during a database failover is runbooks/db-failover.md.',
    ],
    'backs-amira': ['relationship', 'Is the on-call backup of Amira for the payments services.'],
    manager: ['relationship', 'Reports to Marco Rossi, head of infrastructure.'],
    'ru-brother': ['relationship', 'Её брат Дмитрий живёт в Москве и работает программистом.'],
    'error-budget': [
      'goal',
      'Wants the error budget burn of the payments API under 50% every month.',
    ],
    cka: ['goal', 'Wants to pass the CKA certification by June.'],
    'ru-half-marathon': ['goal', 'Хочет пробежать полумарафон в Таллине в сентябре.'],
    freeze: ['constraint', 'Change freeze for production from 20 December to 3 January.'],
    kubectl: [
      'constraint',
      'Never runs kubectl delete against production without a second reviewer.',
    ],
    'break-glass': [
      'constraint',
      'Uses the break-glass account admin@northwind.example only in emergencies; every use is audited.',
    ],
    'ru-oncall': [
      'constraint',
      'Дежурит только одну неделю в месяц — так договорились с руководителем.',
    ],
    dashboards: ['preference', 'Prefers Grafana to Kibana for dashboards.'],
    postmortems: [
      'preference',
      'Likes postmortems in the blameless format, with the timeline first.',
    ],
    'ru-coffee': ['preference', 'По утрам пьёт чёрный кофе без сахара.'],
    shell: ['preference', 'Uses the fish shell and tmux; her dotfiles are on GitLab.'],
    'ru-study': [
      'identity',
      'Окончила ИТМО в Санкт-Петербурге по специальности «прикладная математика».',
    ],
    nginx: ['project', 'The nginx config of the edge proxies is /etc/nginx/conf.d/edge.conf.'],
    'node-pools': [
      'project',
      'Node pools use c6i.2xlarge instances; spot instances only for batch jobs.',
    ],
    backups: ['project', 'Backups: pgBackRest to S3 every 6 hours, kept for 14 days.'],
    'slo-guide': ['goal', 'Plans to write an internal guide on SLOs for product teams.'],
    'helm-anchors': ['preference', 'Dislikes YAML anchors in Helm charts.'],
    'gpu-nodes': ['relationship', 'Works with Jonas to run the fraud model on GPU nodes.'],
    reading: [null, "Mentioned that she is reading Dostoevsky's The Idiot again."],
    'oom-limit': ['project', 'The OOMKilled feature backfill jobs now get a 16Gi memory limit.'],
    yubikey: ['constraint', 'Production access requires a hardware key (YubiKey).'],
    'trade-offs': ['preference', 'Wants the trade-offs listed explicitly in answers.'],
    pronouns: ['identity', 'Uses she/her pronouns.'],
    'ru-backup': ['project', 'Ночной бэкап PostgreSQL занимает почти шесть часов.'],
    loki: ['goal', 'Wants to move from the self-hosted ELK stack to Loki by Q4.'],
    'status-page': ['project', 'Status updates are posted on status.northwind.example.'],
    'ru-hiking': ['preference', 'Любит ходить в походы по Эстонии на выходных.'],
    cat: ['relationship', 'Her cat is called Pirozhok.'],
    'argo-version': [
      'project',
      'Argo CD is at v2.9.3; upgrading to v2.10 needs the new RBAC syntax.',
    ],
  },

  mei: {
    role: ['identity', 'Mei Chen, product designer for the merchant dashboard and the mobile app.'],
    office: ['identity', "Based in Shanghai; works from the Jing'an office."],
    'zh-office': ['identity', '在上海的静安区办公室工作。'],
    'zh-tea': ['preference', '喜欢喝乌龙茶，不喝咖啡。'],
    'feedback-style': [
      'preference',
      'Wants design feedback as numbered points, each tied to a screen.',
    ],
    harbor: [
      'project',
      'Owns Harbor, the Northwind design system, in Figma and as React components.',
    ],
    tokens: ['project', 'The design tokens are in packages/harbor-tokens/tokens.json.'],
    'payouts-layout': [
      'project',
      'Designing the new payouts layout together with Lucía and Kenji.',
    ],
    'harbor-versions': [
      'project',
      'Harbor v4.2.0 adds the dark theme; v4.1.3 fixes the date picker.',
    ],
    'ticket-4602': [
      'project',
      'TICKET-4602: the date picker ignores the first day of the week in the Chinese locale.',
    ],
    'zh-payouts': ['project', '正在设计商户后台的新付款页面。'],
    'works-kenji': ['relationship', 'Works with Kenji on the design system of the app.'],
    manager: ['relationship', 'Reports to Anna Lindqvist, head of design.'],
    'zh-husband': ['relationship', '她的丈夫是一名中学老师。'],
    wcag: ['goal', 'Wants every Harbor component to meet WCAG 2.2 AA by the end of the year.'],
    'zh-blender': ['goal', '今年想学会用Blender做三维图。'],
    config: ['goal', "Wants to speak at Config, Figma's conference."],
    fonts: ['constraint', 'Cannot use Google Fonts in the product: fonts must be self-hosted.'],
    'zh-wednesday': ['constraint', '每周三下午要接孩子，不能开会。'],
    contrast: ['constraint', 'Every text colour must pass a 4.5:1 contrast ratio.'],
    'light-mode': ['preference', 'Prefers light mode and an 8-point spacing grid.'],
    'zh-cycling': ['preference', '周末常去杭州西湖骑自行车。'],
    sketches: ['preference', 'Sketches on paper before opening Figma.'],
    'zh-study': ['identity', '毕业于同济大学，专业是工业设计。'],
    research: ['project', "User research notes are in Dovetail, project 'Payouts 2024'."],
    icons: ['project', 'Icons are exported as SVG into packages/harbor-icons/svg/.'],
    'a11y-lucia': [
      'relationship',
      'Collaborates with Lucía on the accessibility fixes of the dashboard.',
    ],
    stationery: ['preference', 'Likes Muji notebooks and 0.38 mm gel pens.'],
    vegetarian: ['constraint', 'Vegetarian on weekdays.'],
    pronouns: ['identity', 'Uses she/her pronouns.'],
    storybook: ['project', 'The Harbor Storybook is published at harbor.northwind.example.'],
    'figma-language': ['preference', 'Uses Figma with its interface in Simplified Chinese.'],
    'payout-word': [null, "Asked how to say 'payout' in Japanese."],
    'empty-states': [
      'project',
      "Empty states in the dashboard use illustrations from the 'Tides' set.",
    ],
    'zh-colours': ['project', '设计系统的颜色变量已经迁移到新的命名规则。'],
    critique: ['goal', 'Wants to run a design critique with the mobile team every two weeks.'],
    son: ['relationship', 'Has a six-year-old son, Leo.'],
    'zh-food': ['preference', '最喜欢吃小笼包。'],
    'no-sharing': [
      'constraint',
      'Must not share unreleased designs outside the company, Dribbble included.',
    ],
    'token-error': [
      'project',
      'Components show the error code HBR-E12 when they get an invalid token.',
    ],
    prototype: ['project', 'The prototype of the payouts page is the Figma file PAYOUTS-V2.'],
    'reading-language': [
      'preference',
      'Prefers long documents in Chinese and short ones in English.',
    ],
    buttons: ['goal', 'Wants to cut the button variants from 14 to 6.'],
  },
};

export const MEMORIES: readonly LabelledMemory[] = USERS.flatMap((user) =>
  Object.entries(STORES[user]).map(([name, [category, content]]) => ({
    key: `${user}/${name}`,
    user,
    category: category ?? undefined,
    content,
  })),
);

const query = (user: User, kind: QueryKind, q: string, answers: readonly string[]) => ({
  user,
  kind,
  q,
  answers: answers.map((name) => (name.includes('/') ? name : `${user}/${name}`)),
});

/**
 * Answers are named within the asker's store (`peanuts` is `amira/peanuts` in Amira's query); a
 * full key names another store's memory, which the set's test refuses.
 */
export const QUERIES: readonly LabelledQuery[] = [
  // keyword: words of the memory, as written.
  query('amira', 'keyword', 'stripe payouts', ['reconciliation']),
  query('amira', 'keyword', 'padel', ['padel']),
  query('amira', 'keyword', 'neovim', ['editor']),
  query('amira', 'keyword', 'coffee sugar', ['coffee']),
  query('amira', 'keyword', 'junior engineers', ['mentoring']),
  query('amira', 'keyword', 'pull requests', ['pr-size']),
  query('amira', 'keyword', 'obsidian', ['notes']),
  query('amira', 'keyword', 'deploys frozen', ['freeze']),
  query('jonas', 'keyword', 'polars pandas', ['python']),
  query('jonas', 'keyword', 'chess', ['chess']),
  query('jonas', 'keyword', 'gpu budget', ['gpu-budget']),
  query('jonas', 'keyword', 'chargebacks', ['label-delay']),
  query('jonas', 'keyword', 'feast bigquery', ['feature-store']),
  query('jonas', 'keyword', 'marathon', ['marathon']),
  query('lucia', 'keyword', 'oat milk', ['lactose', 'coffee']),
  query('lucia', 'keyword', 'roadmap legal', ['roadmap-legal']),
  query('lucia', 'keyword', 'amplitude', ['amplitude']),
  query('lucia', 'keyword', 'notion template', ['prd']),
  query('lucia', 'keyword', 'nps', ['nps', 'nps-goal']),
  query('kenji', 'keyword', 'fastlane', ['fastlane']),
  query('kenji', 'keyword', 'swiftui storyboards', ['swift']),
  query('kenji', 'keyword', 'city pop', ['music']),
  query('kenji', 'keyword', 'shellfish', ['shellfish']),
  query('olga', 'keyword', 'terraform argo', ['clusters']),
  query('olga', 'keyword', 'blameless postmortems', ['postmortems']),
  query('olga', 'keyword', 'patroni', ['patroni']),
  query('olga', 'keyword', 'change freeze', ['freeze']),
  query('mei', 'keyword', 'design tokens', ['tokens']),
  query('mei', 'keyword', 'storybook', ['storybook']),
  query('mei', 'keyword', 'google fonts', ['fonts']),

  // identifier: tickets, versions, codes, emails, paths, hosts.
  query('amira', 'identifier', 'TICKET-4521', ['ticket-4521']),
  query('amira', 'identifier', 'ticket 4512', ['ticket-4512']),
  query('amira', 'identifier', 'v2.3.1', ['ledger-pin']),
  query('amira', 'identifier', 'v2.4', ['ledger-next']),
  query('amira', 'identifier', 'ECONNRESET', ['econnreset']),
  query('amira', 'identifier', 'E_LEDGER_LOCK_TIMEOUT', ['lock-timeout']),
  query('amira', 'identifier', 'claire.dubois@northwind.example', ['finance']),
  query('amira', 'identifier', 'webhooks.yaml', ['webhooks-config']),
  query('amira', 'identifier', '/var/log/recon', ['mismatch-log']),
  query('amira', 'identifier', 'http 409', ['http-409']),
  query('amira', 'identifier', 'prod-eu-west-1', ['k8s-job']),
  query('jonas', 'identifier', 'TICKET-3307', ['ticket-3307']),
  query('jonas', 'identifier', 'v1.9.0', ['model-versions', 'shadow']),
  query('jonas', 'identifier', 'gs://nw-fraud-training', ['training-data']),
  query('jonas', 'identifier', 'OOMKilled', ['oom']),
  query('jonas', 'identifier', 'FRD-429', ['rate-limit']),
  query('jonas', 'identifier', 'mcc_mapping.csv', ['mcc']),
  query('jonas', 'identifier', 'fraud.shadow_scores', ['shadow']),
  query('lucia', 'identifier', 'TICKET-5102', ['ticket-5102']),
  query('lucia', 'identifier', 'v5.13', ['release', 'a11y']),
  query('lucia', 'identifier', 'marta.ruiz@tiendassol.example', ['contact']),
  query('lucia', 'identifier', 'DSH-503', ['error-page']),
  query('lucia', 'identifier', 'es.json', ['i18n']),
  query('kenji', 'identifier', 'EXC_BAD_ACCESS', ['crash']),
  query('kenji', 'identifier', '3.9.0', ['version']),
  query('kenji', 'identifier', 'TICKET-4388', ['ticket-4388']),
  query('kenji', 'identifier', 'APIClient.swift', ['networking']),
  query('kenji', 'identifier', 'ios-payouts-v2', ['feature-flag']),
  query('kenji', 'identifier', 'guideline 5.1.1', ['app-review']),
  query('kenji', 'identifier', 'APP-401', ['session-error']),
  query('olga', 'identifier', 'INC-2291', ['incident']),
  query('olga', 'identifier', 's3://nw-tfstate/prod/terraform.tfstate', ['tfstate']),
  query('olga', 'identifier', '/etc/nginx/conf.d/edge.conf', ['nginx']),
  query('olga', 'identifier', 'PD-PLATFORM-PRIMARY', ['pager']),
  query('olga', 'identifier', 'c6i.2xlarge', ['node-pools']),
  query('olga', 'identifier', 'argo cd v2.9.3', ['argo-version']),
  query('olga', 'identifier', 'admin@northwind.example', ['break-glass']),
  query('mei', 'identifier', 'TICKET-4602', ['ticket-4602']),
  query('mei', 'identifier', 'harbor v4.2.0', ['harbor-versions']),
  query('mei', 'identifier', 'HBR-E12', ['token-error']),
  query('mei', 'identifier', 'tokens.json', ['tokens']),

  // multilingual: accents typed or not, another case, scripts without spaces.
  query('amira', 'multilingual', 'réunions matin', ['fr-meetings']),
  query('amira', 'multilingual', 'reunions matin', ['fr-meetings']),
  query('amira', 'multilingual', 'Croix-Rousse', ['fr-home']),
  query('amira', 'multilingual', 'sœur pédiatre', ['fr-sister']),
  query('amira', 'multilingual', 'soeur pediatre', ['fr-sister']),
  query('amira', 'multilingual', 'espagnol Séville', ['fr-spanish']),
  query('amira', 'multilingual', 'espagnol seville', ['fr-spanish']),
  query('jonas', 'multilingual', 'Antworten auf Deutsch', ['de-answers']),
  query('jonas', 'multilingual', 'grünen Tee', ['de-tea']),
  query('jonas', 'multilingual', 'grunen tee', ['de-tea']),
  query('jonas', 'multilingual', 'Technische Universität München', ['de-study']),
  query('jonas', 'multilingual', 'technische universitaet muenchen', ['de-study']),
  query('jonas', 'multilingual', 'Fahrrad Kopenhagen', ['de-bike']),
  query('jonas', 'multilingual', 'ÄRZTIN', ['de-sister']),
  query('lucia', 'multilingual', 'guitarra flamenca', ['es-guitar']),
  query('lucia', 'multilingual', 'maratón', ['es-marathon', 'marathon']),
  query('lucia', 'multilingual', 'maraton madrid', ['es-marathon', 'marathon']),
  query('lucia', 'multilingual', 'paella cilantro', ['es-paella']),
  query('lucia', 'multilingual', 'encuesta de satisfaccion', ['es-survey']),
  query('lucia', 'multilingual', 'Álvaro arquitecto', ['es-partner']),
  query('kenji', 'multilingual', '寿司', ['ja-sushi']),
  query('kenji', 'multilingual', '東京', ['ja-home', 'ja-cafe', 'home']),
  query('kenji', 'multilingual', '鎌倉でサーフィン', ['ja-surf']),
  query('kenji', 'multilingual', '抹茶', ['ja-matcha']),
  query('kenji', 'multilingual', '京都マラソン', ['ja-marathon']),
  query('kenji', 'multilingual', '看護師', ['ja-wife']),
  query('olga', 'multilingual', 'КОФЕ БЕЗ САХАРА', ['ru-coffee']),
  query('olga', 'multilingual', 'пьет кофе', ['ru-coffee']),
  query('olga', 'multilingual', 'итмо', ['ru-study']),
  query('olga', 'multilingual', 'брат в Москве', ['ru-brother']),
  query('olga', 'multilingual', 'Походы по Эстонии', ['ru-hiking']),
  query('mei', 'multilingual', '乌龙茶', ['zh-tea']),
  query('mei', 'multilingual', '上海办公室', ['zh-office', 'office']),
  query('mei', 'multilingual', '小笼包', ['zh-food']),
  query('mei', 'multilingual', '同济大学', ['zh-study']),
  query('mei', 'multilingual', '付款页面', ['zh-payouts', 'payouts-layout']),

  // prefix: the last word still being typed.
  query('amira', 'prefix', 'reconcil', [
    'reconciliation',
    'k8s-job',
    'mismatch-log',
    'recon-goal',
    'lock-timeout',
  ]),
  query('amira', 'prefix', 'idempotency ke', ['ticket-4521', 'http-409', 'adr']),
  query('amira', 'prefix', 'half-mara', ['half-marathon']),
  query('amira', 'prefix', 'part-dieu off', ['office']),
  query('amira', 'prefix', 'architecture deci', ['adr']),
  query('amira', 'prefix', 'fastif', ['fastify']),
  query('jonas', 'prefix', 'lightg', ['model']),
  query('jonas', 'prefix', 'real-time sco', ['realtime-goal']),
  query('jonas', 'prefix', 'population stabil', ['retraining']),
  query('jonas', 'prefix', 'mlfl', ['mlflow']),
  query('jonas', 'prefix', 'humbol', ['student']),
  query('lucia', 'prefix', 'payouts pag', ['redesign', 'ticket-4521']),
  query('lucia', 'prefix', 'user interv', ['interviews']),
  query('lucia', 'prefix', 'competitor analy', ['competitors']),
  query('lucia', 'prefix', 'figma comm', ['figma']),
  query('kenji', 'prefix', 'dynamic ty', ['dynamic-type']),
  query('kenji', 'prefix', 'swift packa', ['spm']),
  query('kenji', 'prefix', 'push notif', ['ticket-4388', 'ja-push']),
  query('kenji', 'prefix', 'strict concur', ['swift-6']),
  query('kenji', 'prefix', 'サーフ', ['ja-surf']),
  query('olga', 'prefix', 'kubernetes 1.3', ['upgrade']),
  query('olga', 'prefix', 'error budg', ['error-budget']),
  query('olga', 'prefix', 'yubik', ['yubikey']),
  query('olga', 'prefix', 'pgbackr', ['backups']),
  query('olga', 'prefix', 'дежур', ['ru-oncall']),
  query('mei', 'prefix', 'design critiq', ['critique']),
  query('mei', 'prefix', 'button vari', ['buttons']),
  query('mei', 'prefix', 'dribb', ['no-sharing']),
  query('mei', 'prefix', 'empty stat', ['empty-states']),

  // question: natural questions; not all of their words are in the memory.
  query('amira', 'question', 'who is my manager?', ['manager']),
  query('amira', 'question', 'when is the production deploy freeze?', ['freeze']),
  query('amira', 'question', "what is my son's name?", ['son']),
  query('amira', 'question', 'which cluster does the reconciliation job run on?', ['k8s-job']),
  query('amira', 'question', 'what does E_LEDGER_LOCK_TIMEOUT mean?', ['lock-timeout']),
  query('amira', 'question', 'how do I take my coffee?', ['coffee']),
  query('jonas', 'question', "what's my dog called?", ['home']),
  query('jonas', 'question', 'which fraud model version is in production?', ['model-versions']),
  query('jonas', 'question', 'when is the weekly model review?', ['model-review']),
  query('jonas', 'question', 'how much can I spend on GPUs?', ['gpu-budget']),
  query('jonas', 'question', 'where is the training data stored?', ['training-data']),
  query('jonas', 'question', 'which risk analysts do I work with?', ['dublin']),
  query('lucia', 'question', 'who is my VP?', ['manager']),
  query('lucia', 'question', 'what is blocking the payouts page launch?', ['ticket-4521']),
  query('lucia', 'question', 'which file formats does the export support?', ['export']),
  query('lucia', 'question', 'how big is the beta incentive budget?', ['beta-budget']),
  query('lucia', 'question', 'when is my 1:1 with Daniel?', ['one-on-one']),
  query('kenji', 'question', 'what is the minimum iOS version we support?', ['min-ios']),
  query('kenji', 'question', 'what is the top crash in the app?', ['crash']),
  query('kenji', 'question', 'who is my manager?', ['manager']),
  query('kenji', 'question', 'how are build numbers formatted?', ['build-number']),
  query('olga', 'question', 'where is the terraform state?', ['tfstate']),
  query('olga', 'question', 'how long does a database failover take?', ['patroni']),
  query('olga', 'question', 'how often do backups run?', ['backups']),
  query('mei', 'question', 'where are the icons exported to?', ['icons']),
  query('mei', 'question', 'who do I report to?', ['manager']),
  query('mei', 'question', 'what contrast ratio must text meet?', ['contrast']),

  // paraphrase: no content word in common with the answer.
  query('amira', 'paraphrase', 'food I should keep away from', ['peanuts']),
  query('amira', 'paraphrase', 'who covers for me when I am paged at night', ['oncall-backup']),
  query('amira', 'paraphrase', 'which certification am I studying for', ['aws-exam']),
  query('amira', 'paraphrase', 'my children', ['son']),
  query('amira', 'paraphrase', 'holiday code lock', ['freeze']),
  query('jonas', 'paraphrase', 'dietary restrictions', ['vegetarian']),
  query('jonas', 'paraphrase', 'medicine I react badly to', ['penicillin']),
  query('jonas', 'paraphrase', 'cycling trip this summer', ['de-bike']),
  query('jonas', 'paraphrase', 'people that declined tracking are excluded', ['gdpr']),
  query('jonas', 'paraphrase', 'board game hobby', ['chess']),
  query('lucia', 'paraphrase', 'trouble digesting dairy', ['lactose']),
  query('lucia', 'paraphrase', 'wedding in the family', ['es-june']),
  query('lucia', 'paraphrase', 'racket sport at the weekend', ['padel']),
  query('lucia', 'paraphrase', 'how I like plans laid out', ['roadmap-format']),
  query('kenji', 'paraphrase', 'seafood I cannot eat', ['shellfish']),
  query('kenji', 'paraphrase', 'favourite raw fish dish', ['ja-sushi']),
  query('kenji', 'paraphrase', 'error monitoring tool for the phone app', ['crash']),
  query('kenji', 'paraphrase', 'riding waves', ['ja-surf']),
  query('olga', 'paraphrase', 'two-person rule for destructive commands', ['kubectl']),
  query('olga', 'paraphrase', 'her pet', ['cat']),
  query('olga', 'paraphrase', 'where her sibling lives', ['ru-brother']),
  query('olga', 'paraphrase', 'new logging system planned', ['loki']),
  query('mei', 'paraphrase', 'what she drinks instead of espresso', ['zh-tea']),
  query('mei', 'paraphrase', 'when she is unavailable midweek', ['zh-wednesday']),
  query('mei', 'paraphrase', 'typeface hosting rule', ['fonts']),
  query('mei', 'paraphrase', 'her kid', ['son']),
];
