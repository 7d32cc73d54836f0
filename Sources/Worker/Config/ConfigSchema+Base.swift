import LiveRelayCore

/// The config schema's own part: everything but the provider kinds' keys. Its `provider` definition has the
/// keys every kind shares; ``ConfigSchema/document(kinds:)`` adds `type` and each kind's keys. Edit it here
/// (or a provider's keys in its folder), then regenerate `docs/liverelay.schema.json` with
/// `LIVERELAY_UPDATE_GOLDEN=1` and the config loader's tests (a test fails while they differ).
extension ConfigSchema {
    /// The schema without the provider kinds' keys.
    static let base = #"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "https://liverelay.dev/schemas/liverelay.schema.json",
          "title": "LiveRelay configuration",
          "description": "One JSON file: the feeds to poll, the rule files, the provider, and where state is kept. Secrets are referenced ({\"env\": NAME} or {\"file\": path}), never written here.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "$schema": { "type": "string", "description": "The schema this file follows, for editors." },
            "description": { "type": "string", "description": "Free text." },
            "state": { "type": "string", "minLength": 1, "description": "The SQLite state file, relative to this file's folder. Default: liverelay.sqlite." },
            "rules": {
              "type": "array",
              "items": { "type": "string", "minLength": 1 },
              "description": "Rule files or folders (every *.json except *.schema.json), relative to this file's folder."
            },
            "state-failure-limit": {
              "type": "integer",
              "minimum": 5,
              "description": "Seconds the state file may keep failing (locked, disk full, read-only) before liverelay run exits with an error, so a supervisor restarts it; shorter failures are retried while the worker goes on. Default 300."
            },
            "timer-interval": {
              "type": "integer",
              "minimum": 1,
              "maximum": 3600,
              "description": "Seconds between two passes of the timer rules (rules with \"on\": {\"every\": …} or {\"quiet\": …}) in liverelay run: a timer rule acts at most this late. Default 1."
            },
            "contracts": {
              "type": "array",
              "items": { "type": "string", "minLength": 1 },
              "description": "Content-state contract files (docs/contracts.md), one per attributes type, relative to this file's folder: every state and start attributes are checked against them before they are queued."
            },
            "feeds": {
              "type": "array",
              "items": { "$ref": "#/$defs/feed" },
              "description": "The feeds to poll."
            },
            "provider": { "$ref": "#/$defs/provider" },
            "providers": {
              "type": "array",
              "items": { "allOf": [{ "$ref": "#/$defs/provider" }], "required": ["id"] },
              "description": "More providers, each with an id, that routes send to. Without provider, the first is the default."
            },
            "routes": {
              "type": "array",
              "description": "Which pushes go to which of providers: by attributes-type or by the rule file whose rules made them. The first matching route wins; other pushes go to the default provider.",
              "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["provider"],
                "minProperties": 2,
                "maxProperties": 2,
                "properties": {
                  "attributes-type": { "type": "string", "minLength": 1, "description": "Pushes of this attributes type (the app's ActivityAttributes type name)." },
                  "rule-file": { "type": "string", "minLength": 1, "description": "Pushes made by the rules of this file, relative to this file's folder." },
                  "provider": { "type": "string", "minLength": 1, "description": "The id of an entry of providers." }
                }
              }
            },
            "activity-modes": {
              "type": "array",
              "description": "How activities reach devices, by attributes-type or by the rule file whose rules made them: token (one push per device token; the default), channel (one APNs broadcast per update to the activity's channel; starts by push-to-start with input-push-channel), both (the channel for devices registered as channel subscribers, tokens for the rest). channel and both need an apns (or console) provider with channels. The first matching entry wins.",
              "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["mode"],
                "minProperties": 2,
                "maxProperties": 2,
                "properties": {
                  "attributes-type": { "type": "string", "minLength": 1, "description": "Activities of this attributes type." },
                  "rule-file": { "type": "string", "minLength": 1, "description": "Activities whose pushes the rules of this file make, relative to this file's folder." },
                  "mode": { "enum": ["token", "channel", "both"], "description": "token, channel or both." }
                }
              }
            },
            "priority": {
              "type": "object",
              "additionalProperties": false,
              "description": "How rules with \"priority\": \"auto\" are sent.",
              "properties": {
                "auto-relevance-threshold": { "type": "number", "minimum": 0, "description": "At or above this relevance, auto sends at priority 10 (an alert always does). Default 75." }
              }
            },
            "throttle": {
              "type": "object",
              "additionalProperties": false,
              "description": "Apple's push budget: how many priority-10 pushes each activity gets, and how pushes are paced.",
              "properties": {
                "budget": { "$ref": "#/$defs/budget" },
                "budgets": {
                  "type": "object",
                  "description": "Budgets by attributes type (the Swift type name of the app's ActivityAttributes).",
                  "additionalProperties": { "$ref": "#/$defs/budget" }
                },
                "minimum-interval": { "type": "integer", "minimum": 0, "description": "Seconds between two pushes of one activity, so timestamps stay distinct. Default 1." },
                "push-to-start": {
                  "type": "object",
                  "additionalProperties": false,
                  "description": "Pacing of push-to-start per device and attributes type.",
                  "properties": {
                    "limit": { "type": "integer", "minimum": 1, "description": "Starts per window. Default 10." },
                    "window": { "type": "integer", "minimum": 1, "description": "The window in seconds. Default 3600." },
                    "restart-after": { "type": "integer", "minimum": 60, "description": "Seconds after which a device that got an activity's start and never reported its update token may get another start (the first may have been lost). Default: never; one start per device and activity." }
                  }
                }
              }
            },
            "postgres": {
              "type": "object",
              "additionalProperties": false,
              "required": ["url"],
              "description": "Keep the state in PostgreSQL instead of the SQLite file, so several workers share it (docs/scaling.md): one polls the feeds at a time, all deliver and serve the API. Without it the state is the SQLite file of \"state\".",
              "properties": {
                "url": { "type": "string", "pattern": "^postgres(ql)?://", "description": "postgres://user@host[:port]/database, without the password (?sslmode=require asks for TLS)." },
                "password": { "$ref": "#/$defs/secret", "description": "The database password." },
                "tls": { "type": "boolean", "description": "TLS to the database, certificates verified. Default false." },
                "ca-file": { "type": "string", "minLength": 1, "description": "A CA file for TLS (a private CA), relative to this file's folder; the system's roots otherwise." },
                "schema": { "type": "string", "pattern": "^[a-z0-9_]+$", "description": "The PostgreSQL schema LiveRelay's tables live in. Default: the database's (public)." },
                "worker": { "type": "string", "minLength": 1, "description": "This worker's name on its claims and leases; unique among the workers. Default: host name and process id." },
                "lease-seconds": { "type": "integer", "minimum": 2, "description": "How long the feeds' poller holds its lease without renewing it: when a poller dies, another worker takes the feeds over within about 1.33 times this. Default: 1.5 times the shortest feed interval (at least 3), so a takeover takes at most 2 poll intervals." },
                "claim-seconds": { "type": "integer", "minimum": 5, "description": "How long a worker's claim on outbox rows lasts while its heartbeat goes on (a long round renews it). Default 60." },
                "worker-timeout": { "type": "integer", "minimum": 2, "maximum": 3600, "description": "Seconds after its last heartbeat (written every fifth of this) at which a worker counts as gone: the others take its claimed outbox rows over at once, and a worker that stalled that long sends none of them. Default 3." },
                "claim-batch": { "type": "integer", "minimum": 1, "maximum": 100000, "description": "Outbox rows a worker claims at once while other workers are alive; smaller batches share a fan-out between more workers. A worker alone claims 10,000 (or this, if larger). Default 1000." }
              }
            },
            "api": {
              "type": "object",
              "additionalProperties": false,
              "description": "The HTTP API of liverelay run: /healthz, /metrics, and token registration for app backends.",
              "properties": {
                "host": { "type": "string", "minLength": 1, "description": "Address to listen on. Default 127.0.0.1." },
                "port": { "type": "integer", "minimum": 0, "maximum": 65535, "description": "Port; 0 picks a free one. Default 8787." },
                "bearer-token": { "$ref": "#/$defs/secret", "description": "The bearer token app backends present to register tokens; without it, registration is refused." },
                "max-body-bytes": { "type": "integer", "minimum": 256, "description": "Larger request bodies are refused with 413. Default 16384." },
                "request-timeout": { "type": "integer", "minimum": 1, "maximum": 3600, "description": "Seconds a request may take to arrive whole (head and body), from the connection's start or the previous answer; a slower one is cut. Default 10." },
                "idle-timeout": { "type": "integer", "minimum": 1, "maximum": 86400, "description": "Seconds a connection may stay open with nothing read. Default 60." },
                "max-connections": { "type": "integer", "minimum": 1, "maximum": 100000, "description": "API connections open at once; more are closed as they come, so the API cannot take the descriptors polling and delivery need. Default 256." },
                "report-window": { "type": "integer", "minimum": 0, "maximum": 2592000, "description": "Seconds of each activity's decisions the state file keeps for GET /v1/activities/{key}/report (changes that reached it, pushes sent and held); older ones are removed as new ones are written. 0 keeps none (the route answers 404). Default 21600 (6 hours)." }
              }
            },
            "http": {
              "type": "object",
              "additionalProperties": false,
              "description": "HTTP client settings shared by feeds and providers.",
              "properties": {
                "ca-file": { "type": "string", "minLength": 1, "description": "A PEM file of trusted CAs, relative to this file's folder; replaces the system bundle. TLS verification is always on." },
                "coalesce-writes": { "type": "boolean", "description": "Let the kernel merge the small writes of push requests (Nagle) on the providers' libcurl connections: less CPU per push while a fan-out keeps the connection full, but a request that finds it idle waits for a delayed ACK. Default false; feeds and the nghttp2 lane never use it." },
                "push-lane": { "enum": ["nghttp2", "curl"], "description": "What carries the pushes of providers whose servers speak HTTP/2 (APNs, FCM): nghttp2 driven directly (default, the fast one) or libcurl." }
              }
            }
          },
          "$defs": {
            "budget": {
              "type": "object",
              "additionalProperties": false,
              "required": ["size"],
              "description": "A priority-10 budget: each priority-10 push counts for one period, then returns to the budget. Apple does not publish the real one; the default is 10 per hour (40 with frequent updates).",
              "properties": {
                "size": { "type": "integer", "minimum": 0, "description": "Priority-10 pushes per period." },
                "period": { "type": "integer", "minimum": 1, "description": "The period in seconds. Default 3600." },
                "frequent-updates-size": { "type": "integer", "minimum": 0, "description": "The size for activities whose app reported frequent updates enabled. Default: 4 × size." }
              }
            },
            "secret": {
              "description": "Where a secret is read from: an environment variable or a file.",
              "oneOf": [
                { "type": "object", "additionalProperties": false, "required": ["env"], "properties": { "env": { "type": "string", "minLength": 1, "description": "The environment variable holding the secret." } } },
                { "type": "object", "additionalProperties": false, "required": ["file"], "properties": { "file": { "type": "string", "minLength": 1, "description": "The file holding the secret, relative to this config's folder." } } }
              ]
            },
            "feed": {
              "type": "object",
              "additionalProperties": false,
              "required": ["id", "url"],
              "description": "A feed to poll. It reads its bodies with a \"preset\" for a known API or with a generic \"mapping\": exactly one of them.",
              "properties": {
                "id": { "type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]*$", "description": "The feed's id; rules name it in \"feed\"." },
                "url": { "type": "string", "pattern": "^(https?://|file:)", "description": "https://…, http://…, or file:path (a relative path resolves against this file's folder)." },
                "interval": { "type": "integer", "minimum": 1, "description": "Seconds between polls in run mode. Default 30." },
                "timeout": { "type": "integer", "minimum": 1, "description": "Seconds a request may take. Default 10." },
                "max-body-bytes": { "type": "integer", "minimum": 1, "description": "A larger body is a feed error. Default 8388608 (8 MiB)." },
                "longest-wait": { "type": "integer", "minimum": 1, "description": "The longest a server's Retry-After or ban may hold the feed, in seconds (at least the interval). Default: 20 intervals, at least 300 and at most 3600." },
                "longest-max-age": { "type": "integer", "minimum": 1, "description": "The longest a server's Cache-Control max-age may hold the feed, in seconds (at least the interval). Default: 4 intervals, at most longest-wait." },
                "headers": {
                  "type": "object",
                  "description": "Extra request headers: a string, or a secret reference for credentials.",
                  "additionalProperties": { "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/secret" }] }
                },
                "mapping": { "$ref": "#/$defs/mapping" },
                "preset": { "$ref": "#/$defs/preset" }
              }
            },
            "preset-name": {
              "type": "string",
              "enum": ["espn-scoreboard", "football-data", "binance", "coinbase-exchange", "kraken", "coingecko"],
              "description": "espn-scoreboard (ESPN site API scoreboard), football-data (football-data.org v4 matches), binance (/api/v3/ticker/24hr or /ticker/price), coinbase-exchange (/products/{id}/ticker), kraken (/0/public/Ticker), coingecko (/api/v3/simple/price)."
            },
            "preset": {
              "description": "A known API, read without a mapping: its name, or an object with the name and the preset's options.",
              "anyOf": [
                { "$ref": "#/$defs/preset-name" },
                {
                  "type": "object",
                  "additionalProperties": false,
                  "required": ["name"],
                  "properties": {
                    "name": { "$ref": "#/$defs/preset-name" },
                    "sport": { "type": "string", "pattern": "^[a-z0-9-]+$", "description": "espn-scoreboard: ESPN's sport (soccer, basketball, football, hockey, …). Without it, the URL's (…/sports/{sport}/…), else the sport of the body's league. It must agree with the URL and with the body's league. Soccer and rugby clocks count up, the others down." },
                    "clock-direction": { "enum": ["up", "down"], "description": "espn-scoreboard: whether clock.seconds counts the time played (up) or left in the period (down), when the sport's default is wrong." },
                    "symbols": {
                      "type": "array",
                      "minItems": 1,
                      "uniqueItems": true,
                      "items": { "type": "string", "minLength": 1 },
                      "description": "binance, kraken, coingecko: the symbols (CoinGecko: coin ids) to follow; all the body holds when absent. A followed symbol missing from a body is gone from the facts."
                    },
                    "product": { "type": "string", "minLength": 1, "description": "coinbase-exchange: the product id (BTC-USD) when the URL does not name it." },
                    "currency": { "type": "string", "minLength": 1, "description": "coingecko: the vs_currencies code to read (usd) when the URL does not say it." },
                    "token": { "$ref": "#/$defs/secret", "description": "football-data: the API token, sent as X-Auth-Token." }
                  },
                  "allOf": [
                    { "if": { "properties": { "name": { "const": "espn-scoreboard" } }, "required": ["name"] },
                      "then": { "properties": { "symbols": false, "product": false, "currency": false, "token": false } } },
                    { "if": { "properties": { "name": { "const": "football-data" } }, "required": ["name"] },
                      "then": { "properties": { "sport": false, "clock-direction": false, "symbols": false, "product": false, "currency": false } } },
                    { "if": { "properties": { "name": { "enum": ["binance", "kraken"] } }, "required": ["name"] },
                      "then": { "properties": { "sport": false, "clock-direction": false, "product": false, "currency": false, "token": false } } },
                    { "if": { "properties": { "name": { "const": "coinbase-exchange" } }, "required": ["name"] },
                      "then": { "properties": { "sport": false, "clock-direction": false, "symbols": false, "currency": false, "token": false } } },
                    { "if": { "properties": { "name": { "const": "coingecko" } }, "required": ["name"] },
                      "then": { "properties": { "sport": false, "clock-direction": false, "product": false, "token": false } } }
                  ]
                }
              ]
            },
            "mapping": {
              "type": "object",
              "additionalProperties": false,
              "required": ["fields"],
              "description": "How entities and their facts are read from a body, with JSON Pointers.",
              "properties": {
                "entities": { "type": "string", "description": "JSON Pointer to the entity list: an array, or an object whose members are entities (\"\" for the whole body). Give this or \"entity\"." },
                "entity": { "type": "string", "description": "JSON Pointer to the body's one entity, for a body that is a single entity with no list (a single quote, one match): \"\" for the whole body. Needs \"id\" or \"entity-id\"." },
                "entity-id": { "type": "string", "minLength": 1, "description": "The id of the one entity of \"entity\", when the body does not carry it." },
                "id": { "type": "string", "description": "JSON Pointer to the entity id inside an entity. Absent: the member name or the array index." },
                "fields": {
                  "type": "object",
                  "minProperties": 1,
                  "description": "Facts by dotted name (home.score is read by rules as curr.home.score).",
                  "additionalProperties": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["pointer", "type"],
                    "properties": {
                      "pointer": { "type": "string", "description": "JSON Pointer to the value inside an entity." },
                      "type": { "enum": ["int", "decimal", "string", "bool", "time"], "description": "int (numeric strings accepted), decimal (exact, for prices), string, bool, time (ISO 8601 or UNIX seconds/milliseconds → UNIX seconds)." },
                      "optional": { "type": "boolean", "description": "When true, a missing or null value leaves the fact out; otherwise it is a feed error. Default false." }
                    }
                  }
                }
              }
            },
            "provider": {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "id": { "type": "string", "minLength": 1, "description": "The name routes refer to (entries of providers). Default: the type." },
                "bundle-id": { "type": "string", "minLength": 1, "description": "The app's bundle id; the APNs topic is <bundle-id>.push-type.liveactivity." },
                "expiration": { "type": "integer", "minimum": 0, "description": "Seconds after a push's timestamp during which APNs may store it for an offline device. Default 3600." },
                "rate": { "type": "number", "exclusiveMinimum": 0, "description": "Requests per second the provider accepts. Default 1000." },
                "burst": { "type": "number", "minimum": 1, "description": "Requests it accepts in a burst. Default: the rate." }
              }
            }
          }
        }
        """#
}
