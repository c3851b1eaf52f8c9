/**
 * Memories for the search latency store (100,000 in one member's store): sentences an assistant
 * would keep about a person at work, from templates and vocabularies, about a sixth of them in
 * French, German, Spanish, Russian, Japanese or Chinese. A seeded PRNG makes the same texts on
 * every call, so the seed process writes them and the bench counts what each query matches
 * without passing 100,000 texts between processes.
 */

/** Mulberry32: a small, fast, seeded PRNG; uniform floats in [0, 1). Not for secrets. */
function mulberry32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20261124;

/** A vocabulary written as one string: its entries separated by `|`. */
const list = (entries: string) => entries.split('|');

const FIRST = list(
  'Anna|Ben|Chloé|Dmitri|Elena|Farid|Greta|Hiro|Inès|Jakob|Karin|Liam|Maya|Nikolai|Olu|Paula|Quentin|Rosa|Sven|Tariq|Ursula|Viktor|Wen|Ximena|Yusuf|Zoë|Aiko|Bruno|Carmen|Deniz',
);
const LAST = list(
  'Novak|Schmidt|Moreau|Garcia|Kowalski|Tanaka|Okafor|Lindqvist|Rossi|Petrov|Haddad|Nguyen|Müller|Dubois|Silva|Jensen|Kim|Costa|Wright|Fischer|Ivanova|Santos|Berg|Chen|Martín|Yilmaz|Larsen|Patel|Weber|Sato',
);
const TEAMS = list(
  'payments|platform|fraud|growth|mobile|data|search|billing|identity|support|checkout|ledger',
);
const ROLES = list(
  'backend engineer|frontend engineer|data scientist|product manager|designer|site reliability engineer|engineering manager|security engineer|QA engineer|technical writer|data engineer|mobile developer',
);
const CITIES = list(
  'Lyon|Berlin|Madrid|Tokyo|Tallinn|Shanghai|Lisbon|Dublin|Warsaw|Toronto|Nairobi|Seoul|Oslo|Milan|Austin|Bangalore|São Paulo|Zürich',
);
const TOOLS = list(
  'PostgreSQL|MySQL|Redis|Kafka|RabbitMQ|Terraform|Pulumi|Docker|Podman|Grafana|Datadog|Sentry|Jenkins|GitHub Actions|GitLab CI|Helm|Argo CD|Vault|Airflow|dbt|Snowflake|BigQuery|Elasticsearch|OpenSearch|Kubernetes|Nomad',
);
const TASKS = list(
  'queues|dashboards|migrations|deployments|alerting|batch jobs|caching|secrets|reports|feature flags|load tests|backups',
);
const SERVICES = list(
  'reconciliation|invoicing|payouts|onboarding|notifications|risk-scoring|exports|ledger|pricing|search-indexer|auth-gateway|webhooks',
);
const CLUSTERS = list('prod-eu-west-1|prod-eu-central-1|prod-us-east-1|staging-eu-1');
const PROBLEMS = list(
  'duplicate events after a retry|timeouts under load|a memory leak in the worker|wrong currency rounding|missing audit entries|slow queries on large accounts|flaky integration tests|stale cache entries|a race between two consumers|dropped connections during failover',
);
const CODES = list(
  'ECONNRESET|ETIMEDOUT|ENOSPC|HTTP 409|HTTP 429|HTTP 502|HTTP 503|E_LOCK_TIMEOUT|ERR_TLS_CERT_ALTNAME_INVALID|OOMKilled|SQLSTATE 40001',
);
const MEANINGS = list(
  'the upstream closed the connection|the disk of the batch host is full|two jobs overlapped|a serialization failure that must be retried|the rate limit was hit|the pod ran out of memory|the certificate names another host',
);
const DRINKS = list(
  'black coffee|green tea|an oat milk flat white|espresso|rooibos|a matcha latte|sparkling water|chai|kombucha|hot chocolate|yerba mate|cold brew',
);
const STYLES = list(
  'short and direct|with code first|as bullet points|with sources|with the trade-offs listed|in plain language|with a summary at the top',
);
const ALLERGENS = list('peanuts|shellfish|gluten|lactose|penicillin|sesame|kiwi|hazelnuts');
const ALLERGY_HABITS = list(
  'carries an EpiPen|checks every menu|warns the caterer before offsites|keeps antihistamines at the office|asks about sauces first',
);
const WEEKDAYS = list('Monday|Tuesday|Wednesday|Thursday|Friday');
const DAYPARTS = list('morning|afternoon|evening');
const MONTHS = list(
  'January|February|March|April|May|June|July|August|September|October|November|December',
);
const REASONS = list(
  'school pick-up|a standing clinic appointment|language classes|choir practice|caring for a parent|a university course|volunteering at a food bank|coaching a youth football team',
);
const RELATIVES = list('daughter|son|sister|brother|partner|dog|cat');
const DOINGS = list(
  'studies medicine|plays the cello|is learning to swim|works as a nurse|runs a bakery|is afraid of thunderstorms|starts school soon|loves long walks',
);
const GOALS = list(
  'cut the p99 latency of|halve the alerts of|write the runbooks of|move to Kubernetes|add tracing to|document the API of|reduce the cost of',
);
const RACES = list('marathon|half-marathon|10K|triathlon|cycling race');
const LANGUAGES = list('Spanish|Japanese|German|French|Portuguese|Korean|Italian|Dutch');
const DATA = list('customer data|card numbers|health records|salary data|logs with emails');
const REGIONS = list('EU|US|APAC');
const APPROVERS = list('legal|the DPO|security|the customer|finance');
const EDITORS = list('Neovim|VS Code|IntelliJ IDEA|Emacs|Zed|Helix');
const THEMES = list('a dark theme|a light theme|Solarized|Gruvbox|high contrast');

const FR = list(
  'préfère les réunions le matin|veut des réponses en français|déjeune à la cantine|travaille depuis la maison|fait du vélo le week-end|apprend le piano|lit des romans policiers|cuisine le dimanche',
);
const DE = list(
  'möchte kurze Antworten|fährt mit dem Fahrrad ins Büro|trinkt keinen Kaffee|arbeitet dienstags von zu Hause|lernt Japanisch|spielt Handball im Verein|wandert gern in den Alpen|backt am Wochenende Brot',
);
const ES = list(
  'prefiere respuestas en español|corre todas las mañanas|odia el cilantro|trabaja desde casa los viernes|aprende a tocar la guitarra|viaja a Sevilla en mayo|juega al pádel|cocina paella los domingos',
);
const RU = list(
  'любит чёрный кофе|работает из дома по пятницам|дежурит раз в месяц|учит испанский язык|ходит в походы по выходным|читает Достоевского|играет в шахматы|катается на лыжах',
);
const JA = list('寿司|ラーメン|サーフィン|抹茶|カメラ|温泉|将棋|登山|釣り|読書');
const JA_PLACES = list('東京|鎌倉|京都|大阪|札幌|横浜|神戸|福岡');
const JA_WHEN = list('週末は|毎朝|夏休みに|金曜日の夜は|月に一度');
const JA_WITH = list('家族と|友達と|同僚と|一人で');
const ZH = list('喝乌龙茶|吃小笼包|骑自行车|打羽毛球|学习日语|看电影|爬山|练书法');
const ZH_PLACES = list('上海|北京|杭州|深圳|成都|南京|广州|西安');
const ZH_WHEN = list('每周末|每天早上|每个月|周三晚上|假期里');
const ZH_WITH = list('和家人|和朋友|和同事|一个人');

type Pick = (entries: readonly string[]) => string;

/** Each template with its weight: together they make every kind of memory. */
const TEMPLATES: ReadonlyArray<
  readonly [weight: number, make: (p: Pick, n: () => number) => string]
> = [
  [
    6,
    (p, n) =>
      `Works as a ${p(ROLES)} on the ${p(TEAMS)} team in ${p(CITIES)} since ${2010 + (n() % 15)}.`,
  ],
  [3, (p) => `${p(FIRST)} ${p(LAST)}, ${p(ROLES)} at Northwind, based in ${p(CITIES)}.`],
  [3, (p, n) => `Grew up in ${p(CITIES)} and moved to ${p(CITIES)} in ${1995 + (n() % 30)}.`],
  [3, (p) => `Speaks ${p(LANGUAGES)} and ${p(LANGUAGES)}; is learning ${p(LANGUAGES)}.`],
  [6, (p) => `Prefers ${p(TOOLS)} over ${p(TOOLS)} for ${p(TASKS)}.`],
  [4, (p) => `Likes answers ${p(STYLES)}, especially about ${p(TASKS)}.`],
  [3, (p) => `Drinks ${p(DRINKS)} every ${p(DAYPARTS)} at the ${p(CITIES)} office.`],
  [3, (p) => `Uses ${p(EDITORS)} with ${p(THEMES)} and keeps the ${p(TEAMS)} dotfiles up to date.`],
  [
    5,
    (p, n) =>
      `Wants to ${p(GOALS)} the ${p(SERVICES)} service for the ${p(TEAMS)} team by Q${1 + (n() % 4)}.`,
  ],
  [2, (p) => `Training for the ${p(CITIES)} ${p(RACES)} in ${p(MONTHS)} with ${p(FIRST)}.`],
  [2, (p) => `Learning ${p(LANGUAGES)} before a trip to ${p(CITIES)} in ${p(MONTHS)}.`],
  [5, (p, n) => `TICKET-${4000 + (n() % 1000)}: ${p(PROBLEMS)} in the ${p(SERVICES)} service.`],
  [
    4,
    (p, n) =>
      `The ${p(SERVICES)} service runs v${1 + (n() % 4)}.${n() % 10}.${n() % 10} on the k8s cluster ${p(CLUSTERS)}.`,
  ],
  [4, (p, n) => `Migrating ${p(SERVICES)} from ${p(TOOLS)} to ${p(TOOLS)}; ${n() % 100}% done.`],
  [
    3,
    (p) => `The config of ${p(SERVICES)} lives in services/${p(TEAMS)}/${p(SERVICES)}/config.yaml.`,
  ],
  [3, (p) => `Error ${p(CODES)} in ${p(SERVICES)} on ${p(CLUSTERS)} usually means ${p(MEANINGS)}.`],
  [4, (p) => `Reports to ${p(FIRST)} ${p(LAST)}, head of the ${p(TEAMS)} group.`],
  [
    4,
    (p) => `Pairs with ${p(FIRST)} from the ${p(TEAMS)} team on ${p(TASKS)} every ${p(WEEKDAYS)}.`,
  ],
  [3, (p) => `Has a ${p(RELATIVES)} called ${p(FIRST)} who ${p(DOINGS)}.`],
  [2, (p) => `Allergic to ${p(ALLERGENS)}; ${p(ALLERGY_HABITS)}.`],
  [3, (p) => `Cannot attend meetings on ${p(WEEKDAYS)} ${p(DAYPARTS)}s because of ${p(REASONS)}.`],
  [
    2,
    (p) =>
      `Must not share ${p(DATA)} outside the ${p(REGIONS)} region without ${p(APPROVERS)} signing off.`,
  ],
  [
    2,
    (p, n) =>
      `Deploys of ${p(SERVICES)} are frozen from ${1 + (n() % 28)} ${p(MONTHS)} for two weeks.`,
  ],
  [
    2,
    (p, n) =>
      `Contact in ${p(TEAMS)}: ${p(FIRST).toLowerCase()}.${p(LAST).toLowerCase()}${n() % 100}@northwind.example.`,
  ],
  [3, (p) => `Elle ${p(FR)} et ${p(FR)} à ${p(CITIES)}.`],
  [3, (p) => `Er ${p(DE)} und ${p(DE)}, seit er in ${p(CITIES)} wohnt.`],
  [3, (p) => `Ella ${p(ES)} y ${p(ES)} desde que vive en ${p(CITIES)}.`],
  [3, (p) => `${p(FIRST)} ${p(RU)} и ${p(RU)}.`],
  [3, (p) => `${p(JA_WHEN)}${p(JA_WITH)}${p(JA_PLACES)}で${p(JA)}を楽しんでいる。`],
  [3, (p) => `${p(ZH_WHEN)}${p(ZH_WITH)}在${p(ZH_PLACES)}${p(ZH)}。`],
];
const TOTAL_WEIGHT = TEMPLATES.reduce((sum, [weight]) => sum + weight, 0);

/**
 * `count` distinct memory texts, the same ones on every call: a store folds a text it already
 * holds, so the corpus holds none twice.
 */
export function corpusTexts(count: number): string[] {
  const random = mulberry32(SEED);
  const pick: Pick = (entries) => entries[Math.floor(random() * entries.length)] ?? '';
  const n = () => Math.floor(random() * 1_000_000);
  const texts = new Set<string>();
  while (texts.size < count) {
    let roll = random() * TOTAL_WEIGHT;
    for (const [weight, make] of TEMPLATES) {
      roll -= weight;
      if (roll >= 0) continue;
      texts.add(make(pick, n));
      break;
    }
  }
  return [...texts];
}
