// Generated from server/openapi.json by `npm run openapi`. Do not edit.

export interface paths {
    "/rest-api/getinfo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Chain height, network and the current minimum fee rate, with a quote of the minimum that holds for a while */
        get: {
            parameters: {
                query?: {
                    /** @description The quote is for this client code (its discount applied); fee_rate stays the minimum without one */
                    client_code?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            block_height: number;
                            /** @description 'mainnet', 'testnet', 'testnet4', 'signet' or 'regtest' */
                            network: string;
                            /** @description The current minimum fee rate (sat/vB) for a submission without client code */
                            fee_rate: number;
                            /** @description A signed fee quote: the minimum a submission naming it is judged by until it expires (or the current minimum, when that is lower), for the same client code. Nothing is stored per quote; it may be named by any number of submissions until it expires. An expired, altered or other client code's quote is refused with the reason */
                            quote?: {
                                /** @description Name it as quote_id in a submission (both APIs, single or package) to be judged at this threshold until expires_at */
                                quote_id: string;
                                /** @description The minimum fee rate (sat/vB) the quote holds, with the client code's discount applied */
                                threshold: number;
                                /** @description The client code the quote holds for; absent: for a submission without one */
                                client_code?: string;
                                /** @description ISO 8601: until then a submission naming the quote is judged at its threshold, even if the minimum has risen (the quote_validity_minutes setting, 10 by default) */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/parse-tx": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decode one transaction or a package and say whether each clears the current minimum fee */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Raw transaction hexes, parents before children */
                        tx_hexes: string[];
                        /** @description A client code for a discount */
                        client_code?: string;
                        /** @description A quote the preview is judged at while it holds, as a submission naming it would be (one that does not hold is left out here) */
                        quote_id?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "success" | "error";
                            message: string;
                            /** @description Why a client code gave no discount */
                            notice?: string;
                            transactions: {
                                status: "success" | "error";
                                message: string;
                                txid?: string;
                                wtxid?: string;
                                version?: number;
                                locktime?: number;
                                size?: number;
                                vsize?: number;
                                weight?: number;
                                fee?: number | null;
                                fee_rate?: number | null;
                                functional_rate?: number | null;
                                meets_minimum_fee?: boolean | null;
                                input_count?: number;
                                output_count?: number;
                                inputs?: {
                                    txid: string;
                                    vout: number;
                                    sequence: number;
                                }[];
                                outputs?: {
                                    value: number;
                                    script_pubkey: string;
                                }[];
                                /** @description Present when the entry was a PSBT: the node finalized it and this item describes the extracted transaction */
                                psbt?: {
                                    stated_fee: number | null;
                                };
                                /** @description The block that already holds this transaction (then nothing is left to submit) */
                                confirmed?: {
                                    txid: string;
                                    block_height: number;
                                    block_hash: string;
                                };
                                /** @description Whether the public network would relay this transaction, judged by a node with Bitcoin Core's default policy */
                                standard?: {
                                    /** @description 'standard': public nodes (Bitcoin Core's default policy) would relay it; 'non-standard': they refuse it, see reason; 'unknown': no policy node could judge it */
                                    verdict: "standard" | "non-standard" | "unknown";
                                    /** @description Bitcoin Core's reject reason, as testmempoolaccept gives it */
                                    reason?: string;
                                    /** @description Why public nodes refuse it, in plain words */
                                    explanation?: string;
                                };
                                /** @description Whether nodes would relay it, per relay policy: Bitcoin Core 30+ ('core', what `standard` says), Core 29 and Knots with -corepolicy ('core-29'), Knots' defaults ('knots') */
                                policies?: {
                                    /** @description 'core': Bitcoin Core 30 and later with its defaults; 'core-29': Bitcoin Core 29 and earlier, and Knots with -corepolicy; 'knots': Bitcoin Knots with its defaults */
                                    policy: "core" | "core-29" | "knots";
                                    /** @description Whether nodes with this policy would relay it; null when no rule or node available could tell */
                                    relays: boolean | null;
                                    /** @description The reject reason, as that node's testmempoolaccept gives it */
                                    reason?: string;
                                    /** @description Why, in plain words */
                                    explanation?: string;
                                    /** @description The share of the network's nodes (percent) this policy stands for, as the operator configured it (POLICY_NETWORK_SHARES); absent when not configured */
                                    network_share?: number;
                                }[];
                                /** @description How child pays for parent counts for it, in plain words: a child priced with the unconfirmed parents it pays for; a package member below the minimum that the members spending it pay for; or, for one below the minimum, how a child can still pay for it */
                                child_pays_for_parent?: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/submit-tx": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit one transaction to the pool's mempool */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Raw transaction hex, at most 8,000,000 characters, or a PSBT (base64, or the hex of its binary form) that the node finalizes */
                        tx_hex: string;
                        /** @description A client code for a discount */
                        client_code?: string;
                        /** @description A quote_id from GET /api/rates or /rest-api/getinfo: judged at its threshold while it holds; refused (with the reason) when it has expired, is for another client code, or was altered */
                        quote_id?: string;
                        /** @description https:// URL that receives a signed POST for each event of the transaction (accepted, mined, replaced, evicted, conflicted, unconfirmed); the answer's callback_secret signs them */
                        callback_url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            /** @description The txid */
                            message: string;
                            /** @description Why a client code gave no discount */
                            notice?: string;
                            /** @description The pool's signed receipt: a compact JWS (ES256, typ slipstream-receipt+jws) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it. */
                            receipt?: string;
                            /** @description Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer */
                            callback_secret?: string;
                            /** @description Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given */
                            callback_notice?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/submit-package": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a package of up to 25 transactions, parents first */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Raw transaction hexes, parents before children */
                        tx_hexes: string[];
                        /** @description A client code for a discount */
                        client_code?: string;
                        /** @description A quote_id from GET /api/rates or /rest-api/getinfo: judged at its threshold while it holds; refused (with the reason) when it has expired, is for another client code, or was altered */
                        quote_id?: string;
                        /** @description https:// URL that receives a signed POST for each event of the transaction (accepted, mined, replaced, evicted, conflicted, unconfirmed); the answer's callback_secret signs them */
                        callback_url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "success" | "error";
                            message: string;
                            /** @description Why a client code gave no discount */
                            notice?: string;
                            /** @description One receipt for each member the node accepted, by txid. The pool's signed receipt: a compact JWS (ES256, typ slipstream-receipt+jws) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it. */
                            receipts?: {
                                [key: string]: string;
                            };
                            /** @description Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer */
                            callback_secret?: string;
                            /** @description Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given */
                            callback_notice?: string;
                            result: {
                                package_msg: string;
                                "tx-results": {
                                    [key: string]: {
                                        txid?: string;
                                        error?: string;
                                    } & {
                                        [key: string]: unknown;
                                    };
                                };
                                "replaced-transactions"?: string[];
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/status-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where a transaction is: in the mempool, mined, or gone */
        get: {
            parameters: {
                query: {
                    /** @description The txid to look up */
                    tx_id: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            transaction: {
                                txid: string;
                                weight: number | null;
                                fee: number | null;
                                size: number | null;
                                vsize: number | null;
                                firstSeen: number | null;
                                position: {
                                    block: number | null;
                                    vsize: number | null;
                                };
                                status: {
                                    confirmed: boolean;
                                    block_hash: string | null;
                                    block_height: number | null;
                                    block_time: number | null;
                                };
                            };
                            /** @description not_in_mempool: it left the node's mempool without being mined (`removal` says why) */
                            state: "in_mempool" | "confirmed" | "not_in_mempool";
                            removal: {
                                /** @description replaced: another transaction spending the same inputs took its place (replace-by-fee); conflicted: a transaction spending the same inputs was mined; evicted: dropped (expired, or the mempool was full) with its inputs still unspent, so it can be submitted again; unknown: it left without being mined, and the portal holds too little of it to say why */
                                reason: "replaced" | "conflicted" | "evicted" | "unknown";
                                replaced_by: string | null;
                                message: string;
                            } | null;
                            last_24h_odds: number | null;
                            last_7d_odds: number | null;
                            odds_note: string | null;
                            expected_next_block_seconds: number | null;
                            market_rate: number | null;
                            rate_to_beat: number | null;
                            functional_rate: number | null;
                            bump?: {
                                /** @description The rate (sat/vB) the package must beat to enter the next block, the status answer's `rate_to_beat`: the market rate, or higher when the cheapest packages of the projected next block free too little room for its size */
                                rate_to_beat: number;
                                package: {
                                    /** @description This transaction and the unconfirmed ancestors submitted here that the projection counts with it (those not already in the next block) */
                                    vsize: number;
                                    /** @description sats (base fees) */
                                    fee: number;
                                    /** @description How many unconfirmed ancestors submitted here are counted */
                                    ancestors: number;
                                    /** @description sat/vB */
                                    rate: number;
                                };
                                cpfp: {
                                    /** @description txid:vout of the output of this transaction a child would spend: its largest output that can pay for the child and that no child submitted here spends */
                                    output: string;
                                    /** @description sats */
                                    output_value: number;
                                    /** @description The child size assumed: one input spending that output (sized by its script type; P2WPKH-sized when unknown) and one P2WPKH output */
                                    child_vsize: number;
                                    /** @description sats the child must pay */
                                    child_fee: number;
                                    /** @description sat/vB */
                                    child_rate: number;
                                    /** @description The package rate with the child (sat/vB) */
                                    package_rate: number;
                                    /** @description The rate (sat/vB) the package with the child must beat to enter the next block: the rate to beat for that larger size, so at least `rate_to_beat` */
                                    rate_to_enter: number;
                                    explanation: string;
                                } | null;
                                rbf: {
                                    /** @description sats a replacement of the same vsize must pay at least (with the unconfirmed ancestors it keeps, the package must beat the rate that enters the next block) */
                                    fee: number;
                                    /** @description sat/vB */
                                    rate: number;
                                    /** @description The replacement size assumed: the original's */
                                    vsize: number;
                                    /** @description sats paid by the transaction and its descendants submitted here, which a replacement evicts */
                                    replaced_fees: number;
                                    /** @description BIP125 rules 3 and 4: the replaced fees plus the incremental relay fee for the replacement's vsize */
                                    bip125_minimum: number;
                                    /** @description On a pool node with Bitcoin Core 31's cluster mempool: the least fee that improves the feerate diagram of its cluster (the relatives submitted here), which that node requires of a replacement */
                                    feerate_diagram_minimum?: number;
                                    /** @description Which minimum sets the fee */
                                    binding: "bip125" | "rate_to_beat" | "feerate_diagram";
                                    explanation: string;
                                } | null;
                                explanation: string;
                            } | null;
                            child_pays_for_parent?: {
                                /** @description The txids of the parents this transaction paid for: they were below the minimum and entered the mempool with it */
                                pays_for: string[];
                                /** @description The txids of the children that paid for this transaction: it was below the minimum and entered the mempool with them */
                                paid_by: string[];
                                message: string;
                            } | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/status-stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where a transaction is, live: Server-Sent Events of the status-check answer */
        get: {
            parameters: {
                query: {
                    /** @description The txid to look up */
                    tx_id: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Server-Sent Events: `event: status` with the answer of GET /rest-api/status-check as one JSON data line, at once, then whenever it changes (the projection or the chain tip moved; at most one a second); a comment line every 15 s keeps the stream open; the stream ends after 5 minutes (reconnect). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/site-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Maintenance switch and contact details for the public pages */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description True while submissions are paused: the public pages show the maintenance screen */
                            maintenance: boolean;
                            /** @description Where to ask for custom blocks and special requests */
                            contact_email: string;
                            /** @description The pool operator's website */
                            company_url: string;
                            /** @description True when the status page may offer "email me when it is mined" (the portal has SMTP configured) */
                            email_notifications: boolean;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/notify-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ask for one email when a transaction submitted here is mined */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A transaction submitted through this portal */
                        txid: string;
                        /** @description Where to send one email when the transaction is mined (or leaves the mempool for good) */
                        notify_email: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/rates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The fee rates a submission is judged by now, with a client code's discount */
        get: {
            parameters: {
                query?: {
                    /** @description A client code: its discount lowers the rate to pay */
                    client_code?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The portal's pricing in the public service's terms. Here a transaction is admitted when its rate (with its unconfirmed ancestors, child pays for parent) reaches effective_rate = max(fee rate floor, market rate × multiplier × (1 − discount/100)). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The rate that makes the pool's next block: the lowest package rate in the mempool engine's projection of it when it is full, else the node's relay minimum (sat/vB) */
                            market_rate: number;
                            /** @description The pricing multiplier setting */
                            multiplier: number;
                            /** @description The client code's discount on the multiplier, 0-99; 0 without an active code */
                            multiplier_discount_percent: number;
                            /** @description multiplier × (1 − multiplier_discount_percent / 100) */
                            discounted_multiplier: number;
                            /** @description The fee rate floor setting: no transaction is admitted below it, whatever the market (sat/vB) */
                            submit_fee_rate: number;
                            /** @description market_rate × discounted_multiplier (sat/vB) */
                            slipstream_rate: number;
                            /** @description What a transaction must pay to be admitted here now: the higher of submit_fee_rate and slipstream_rate (the threshold /rest-api/submit-tx applies) (sat/vB) */
                            effective_rate: number;
                            /** @description Why a client code gave no discount (unknown, inactive, not valid yet, expired) */
                            notice?: string;
                            /** @description A signed fee quote: the minimum a submission naming it is judged by until it expires (or the current minimum, when that is lower), for the same client code. Nothing is stored per quote; it may be named by any number of submissions until it expires. An expired, altered or other client code's quote is refused with the reason */
                            quote?: {
                                /** @description Name it as quote_id in a submission (both APIs, single or package) to be judged at this threshold until expires_at */
                                quote_id: string;
                                /** @description The minimum fee rate (sat/vB) the quote holds, with the client code's discount applied */
                                threshold: number;
                                /** @description The client code the quote holds for; absent: for a submission without one */
                                client_code?: string;
                                /** @description ISO 8601: until then a submission naming the quote is judged at its threshold, even if the minimum has risen (the quote_validity_minutes setting, 10 by default) */
                                expires_at: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/system": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Version, chain, height and the minimum fee rates */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The portal's version */
                            version: string;
                            /** @description 'bitcoin' (mainnet), 'testnet', 'testnet4', 'signet' or 'regtest' */
                            chain_name: string;
                            /** @description The node's chain height */
                            block_height: number;
                            /** @description What a transaction without client code must pay now (effective_rate of /api/rates) (sat/vB) */
                            slipstream_fee_rate_floor: number;
                            /** @description The fee rate floor setting (submit_fee_rate of /api/rates) (sat/vB) */
                            fee_rate_floor: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/block-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The best block (height, hash, time) and the fee rates */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            block_height: number;
                            /** @description The best block hash */
                            block_hash: string;
                            /** @description The best block's time, Unix seconds */
                            block_time: number;
                            /** @description The market rate (market_rate of /api/rates) (sat/vB) */
                            fee_rate: number;
                            /** @description The fee rate floor setting (sat/vB) */
                            submit_fee_rate: number;
                            /** @description What a transaction without client code must pay now (sat/vB) */
                            effective_rate: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit one transaction to the pool's mempool (or, with skip_mempool_submission, only judge it)
         * @description 200 `{status: "success", message: <txid>}`; 400 `{status: "error", message}` for a refusal (bad hex, missing inputs, a fee below effective_rate, the node's reason); 503 when the node or the database cannot be reached. With skip_mempool_submission, a success also carries `standard`: whether the public network (a node with Bitcoin Core's default policy) would relay it, and why not.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Raw transaction hex, or a PSBT (base64, or the hex of its binary form) that the node finalizes */
                        tx_hex: string;
                        /** @description A client code: its discount lowers the rate to pay */
                        client_code?: string;
                        /** @description A quote_id from GET /api/rates or /rest-api/getinfo: judged at its threshold while it holds; refused (with the reason) when it has expired, is for another client code, or was altered */
                        quote_id?: string;
                        /** @description https:// URL that receives a signed POST for each event of the transaction (accepted, mined, replaced, evicted, conflicted, unconfirmed); the answer's callback_secret signs them */
                        callback_url?: string;
                        /** @description true: judged as a submission (decoded, priced, the node's testmempoolaccept) but not sent to the mempool. Nothing is recorded: no submission, nothing in the Tx Puller or reports, no failure for staff; the request is in the audit trail like any other */
                        skip_mempool_submission?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "success" | "error";
                            /** @description On success the txid; on error why it was refused */
                            message: string;
                            /** @description Why a client code gave no discount (unknown, inactive, not valid yet, expired) */
                            notice?: string;
                            /** @description The pool's signed receipt: a compact JWS (ES256, typ slipstream-receipt+jws) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it. */
                            receipt?: string;
                            /** @description Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer */
                            callback_secret?: string;
                            /** @description Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given */
                            callback_notice?: string;
                            /** @description Whether the public network would relay this transaction, judged by a node with Bitcoin Core's default policy */
                            standard?: {
                                /** @description 'standard': public nodes (Bitcoin Core's default policy) would relay it; 'non-standard': they refuse it, see reason; 'unknown': no policy node could judge it */
                                verdict: "standard" | "non-standard" | "unknown";
                                /** @description Bitcoin Core's reject reason, as testmempoolaccept gives it */
                                reason?: string;
                                /** @description Why public nodes refuse it, in plain words */
                                explanation?: string;
                            };
                            policies?: {
                                /** @description 'core': Bitcoin Core 30 and later with its defaults; 'core-29': Bitcoin Core 29 and earlier, and Knots with -corepolicy; 'knots': Bitcoin Knots with its defaults */
                                policy: "core" | "core-29" | "knots";
                                /** @description Whether nodes with this policy would relay it; null when no rule or node available could tell */
                                relays: boolean | null;
                                /** @description The reject reason, as that node's testmempoolaccept gives it */
                                reason?: string;
                                /** @description Why, in plain words */
                                explanation?: string;
                                /** @description The share of the network's nodes (percent) this policy stands for, as the operator configured it (POLICY_NETWORK_SHARES); absent when not configured */
                                network_share?: number;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/transactions/packages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit 2-25 transactions as a package (submitpackage), parents first
         * @description Each member must clear effective_rate on its own, or together with the members that spend it (child pays for parent: (its fee + theirs) / (its vsize + theirs)). 200 when the node took the package; 400 with the node's per-member outcome when it refused all or part of it (members it took are in the mempool and recorded).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 2 to 25 raw transactions, parents first */
                        tx_hexes: string[];
                        /** @description A client code: its discount lowers the rate to pay */
                        client_code?: string;
                        /** @description A quote_id from GET /api/rates or /rest-api/getinfo: judged at its threshold while it holds; refused (with the reason) when it has expired, is for another client code, or was altered */
                        quote_id?: string;
                        /** @description https:// URL that receives a signed POST for each event of the transaction (accepted, mined, replaced, evicted, conflicted, unconfirmed); the answer's callback_secret signs them */
                        callback_url?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "success" | "error";
                            message: string;
                            /** @description Why a client code gave no discount (unknown, inactive, not valid yet, expired) */
                            notice?: string;
                            /** @description One receipt for each member the node accepted, by txid. The pool's signed receipt: a compact JWS (ES256, typ slipstream-receipt+jws) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it. */
                            receipts?: {
                                [key: string]: string;
                            };
                            /** @description Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer */
                            callback_secret?: string;
                            /** @description Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given */
                            callback_notice?: string;
                            /** @description The node's verdict on the package */
                            package_msg?: string;
                            /** @description Each member the node judged, in package order */
                            transactions?: {
                                txid: string | null;
                                wtxid: string;
                                status: "success" | "error";
                                /** @description 'accepted', or why the node refused it */
                                message: string;
                            }[];
                            /** @description The node's submitpackage result as it gave it */
                            result?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "success" | "error";
                            message: string;
                            /** @description Why a client code gave no discount (unknown, inactive, not valid yet, expired) */
                            notice?: string;
                            /** @description One receipt for each member the node accepted, by txid. The pool's signed receipt: a compact JWS (ES256, typ slipstream-receipt+jws) whose payload is JSON {v, pool, network, txid, wtxid, fee (sats), vsize, threshold (sat/vB applied), quote ({quote_id, threshold, expires_at} or null), accepted_at (ISO 8601)}. Check it with the keys at /.well-known/jwks.json (or on the /verify page); once mined, POST it to /api/receipts/proof for the merkle proof. Nobody else can look it up: keep it. */
                            receipts?: {
                                [key: string]: string;
                            };
                            /** @description Signs every delivery to the request's callback_url (Slipstream-Signature header); shown only in this answer */
                            callback_secret?: string;
                            /** @description Why the request's callback_url was not subscribed (for a package: which members, each sentence led by their txids): it already follows the transaction (its first secret still signs, and is not shown again), the transaction has 5 callback URLs, this client address started its day's share of subscriptions, or the database failed. The submission itself is answered as if no callback_url had been given */
                            callback_notice?: string;
                            /** @description The node's verdict on the package */
                            package_msg?: string;
                            /** @description Each member the node judged, in package order */
                            transactions?: {
                                txid: string | null;
                                wtxid: string;
                                status: "success" | "error";
                                /** @description 'accepted', or why the node refused it */
                                message: string;
                            }[];
                            /** @description The node's submitpackage result as it gave it */
                            result?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/transactions/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where a transaction is: in the mempool (its projected block, the rate to beat, the odds), mined, or gone */
        get: {
            parameters: {
                query: {
                    /** @description The txid */
                    tx_id: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: true;
                            tx_id: string;
                            state: "in_mempool" | "confirmed" | "not_in_mempool";
                            confirmed: boolean;
                            block_height: number | null;
                            block_hash: string | null;
                            block_time: number | null;
                            fee: number | null;
                            vsize: number | null;
                            weight: number | null;
                            first_seen: number | null;
                            projected_block: number | null;
                            rate_to_beat: number | null;
                            functional_rate: number | null;
                            last_24h_odds: number | null;
                            last_7d_odds: number | null;
                            expected_next_block_seconds: number | null;
                            removal_reason: ("replaced" | "conflicted" | "evicted" | "unknown") | null;
                            replaced_by: string | null;
                            bump_advice: {
                                /** @description The rate (sat/vB) the package must beat to enter the next block, the status answer's `rate_to_beat`: the market rate, or higher when the cheapest packages of the projected next block free too little room for its size */
                                rate_to_beat: number;
                                package: {
                                    /** @description This transaction and the unconfirmed ancestors submitted here that the projection counts with it (those not already in the next block) */
                                    vsize: number;
                                    /** @description sats (base fees) */
                                    fee: number;
                                    /** @description How many unconfirmed ancestors submitted here are counted */
                                    ancestors: number;
                                    /** @description sat/vB */
                                    rate: number;
                                };
                                cpfp: {
                                    /** @description txid:vout of the output of this transaction a child would spend: its largest output that can pay for the child and that no child submitted here spends */
                                    output: string;
                                    /** @description sats */
                                    output_value: number;
                                    /** @description The child size assumed: one input spending that output (sized by its script type; P2WPKH-sized when unknown) and one P2WPKH output */
                                    child_vsize: number;
                                    /** @description sats the child must pay */
                                    child_fee: number;
                                    /** @description sat/vB */
                                    child_rate: number;
                                    /** @description The package rate with the child (sat/vB) */
                                    package_rate: number;
                                    /** @description The rate (sat/vB) the package with the child must beat to enter the next block: the rate to beat for that larger size, so at least `rate_to_beat` */
                                    rate_to_enter: number;
                                    explanation: string;
                                } | null;
                                rbf: {
                                    /** @description sats a replacement of the same vsize must pay at least (with the unconfirmed ancestors it keeps, the package must beat the rate that enters the next block) */
                                    fee: number;
                                    /** @description sat/vB */
                                    rate: number;
                                    /** @description The replacement size assumed: the original's */
                                    vsize: number;
                                    /** @description sats paid by the transaction and its descendants submitted here, which a replacement evicts */
                                    replaced_fees: number;
                                    /** @description BIP125 rules 3 and 4: the replaced fees plus the incremental relay fee for the replacement's vsize */
                                    bip125_minimum: number;
                                    /** @description On a pool node with Bitcoin Core 31's cluster mempool: the least fee that improves the feerate diagram of its cluster (the relatives submitted here), which that node requires of a replacement */
                                    feerate_diagram_minimum?: number;
                                    /** @description Which minimum sets the fee */
                                    binding: "bip125" | "rate_to_beat" | "feerate_diagram";
                                    explanation: string;
                                } | null;
                                explanation: string;
                            } | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/mempool/tests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The node's testmempoolaccept for each transaction, nothing submitted or recorded
         * @description Needs `Authorization: Bearer <key>`: an API key staff issued to the client from the Clients screen, or a staff token. Without one: 401 `{is_success: false, message: "Missing or invalid Authorization header"}`. Each result also says whether the public network would relay it (`standard`; "unknown" when no policy node could judge).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Raw transactions, parents first */
                        tx_hexes: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: true;
                            results: {
                                txid: string | null;
                                wtxid: string | null;
                                allowed: boolean;
                                vsize: number | null;
                                fee: number | null;
                                reject_reason: string | null;
                                /** @description Whether the public network would relay this transaction, judged by a node with Bitcoin Core's default policy */
                                standard: {
                                    /** @description 'standard': public nodes (Bitcoin Core's default policy) would relay it; 'non-standard': they refuse it, see reason; 'unknown': no policy node could judge it */
                                    verdict: "standard" | "non-standard" | "unknown";
                                    /** @description Bitcoin Core's reject reason, as testmempoolaccept gives it */
                                    reason?: string;
                                    /** @description Why public nodes refuse it, in plain words */
                                    explanation?: string;
                                };
                                /** @description Whether nodes would relay it, per relay policy (core, core-29, knots); empty when it was not tested */
                                policies: {
                                    /** @description 'core': Bitcoin Core 30 and later with its defaults; 'core-29': Bitcoin Core 29 and earlier, and Knots with -corepolicy; 'knots': Bitcoin Knots with its defaults */
                                    policy: "core" | "core-29" | "knots";
                                    /** @description Whether nodes with this policy would relay it; null when no rule or node available could tell */
                                    relays: boolean | null;
                                    /** @description The reject reason, as that node's testmempoolaccept gives it */
                                    reason?: string;
                                    /** @description Why, in plain words */
                                    explanation?: string;
                                    /** @description The share of the network's nodes (percent) this policy stands for, as the operator configured it (POLICY_NETWORK_SHARES); absent when not configured */
                                    network_share?: number;
                                }[];
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tx/{txid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A transaction submitted here, as block explorers (Esplora) answer GET /api/tx/{txid} */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The txid */
                    txid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            txid: string;
                            version: number;
                            locktime: number;
                            vin: {
                                txid: string;
                                vout: number;
                                prevout: {
                                    scriptpubkey: string;
                                    /** @description Esplora's names: p2pkh, p2sh, v0_p2wpkh, v0_p2wsh, v1_p2tr, p2pk, op_return, anchor, empty or unknown */
                                    scriptpubkey_type: string;
                                    scriptpubkey_address?: string;
                                    /** @description sats */
                                    value: number;
                                } | null;
                                scriptsig: string;
                                witness?: string[];
                                is_coinbase: boolean;
                                sequence: number;
                            }[];
                            vout: {
                                scriptpubkey: string;
                                /** @description Esplora's names: p2pkh, p2sh, v0_p2wpkh, v0_p2wsh, v1_p2tr, p2pk, op_return, anchor, empty or unknown */
                                scriptpubkey_type: string;
                                scriptpubkey_address?: string;
                                /** @description sats */
                                value: number;
                            }[];
                            size: number;
                            weight: number;
                            fee: number | null;
                            /** @description As block explorers (Esplora) answer it: the block fields only once confirmed */
                            status: {
                                confirmed: boolean;
                                block_height?: number;
                                block_hash?: string;
                                /** @description Unix seconds */
                                block_time?: number;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tx/{txid}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A transaction submitted here: confirmed, and its block, as block explorers (Esplora) answer GET /api/tx/{txid}/status */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The txid */
                    txid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description As block explorers (Esplora) answer it: the block fields only once confirmed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            confirmed: boolean;
                            block_height?: number;
                            block_hash?: string;
                            /** @description Unix seconds */
                            block_time?: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/tx/{txid}/hex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A transaction submitted here, its raw hex as text, as block explorers (Esplora) answer GET /api/tx/{txid}/hex */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The txid */
                    txid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {boolean} */
                            is_success: false;
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/receipts/proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * For a receipt of a mined transaction: its block and a merkle inclusion proof from the node
         * @description The receipt is checked first (its signature against the published keys): an altered or unknown one gets 400 and costs the node nothing. 404 while no block holds the transaction. Check the answer offline: the header's double SHA-256 (byte-reversed) is block_hash, and the proof's partial merkle tree gives the header's merkle root with the receipt's txid among its matches.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A receipt a submission answered with */
                        receipt: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            txid: string;
                            /** @description The block that holds the transaction */
                            block_hash: string;
                            block_height: number;
                            /** @description The block's 80-byte header, hex: its double SHA-256, byte-reversed, is block_hash */
                            header: string;
                            /** @description The node's gettxoutproof for the txid in that block: a serialized merkle block (BIP 37: the header, the block's transaction count, hashes and flag bits), hex. Walking its partial merkle tree gives the header's merkle root and the txid among the matched leaves; anyone checks it offline */
                            proof: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The pool's receipt keys (JWK Set): check a receipt's signature with them */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The pool's receipt keys (RFC 7517 JWK Set): the one that signs now and every retired one, whose receipts stay valid. A key the pool withdrew (its private half may have leaked) is not here, and receipts it signed no longer verify */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            keys: ({
                                kty: string;
                                crv: string;
                                x: string;
                                y: string;
                                kid: string;
                                alg: string;
                                use: string;
                            } & {
                                [key: string]: unknown;
                            })[];
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text format): the scrape token as a Bearer token when METRICS_TOKEN is set; otherwise a staff token, or nothing when the public mempool view setting is on */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Prometheus text format */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain; version=0.0.4; charset=utf-8": string;
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether this server can take submissions: the node, the database and the mempool projection */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description ok (HTTP 200) when the node, the database and the mempool projection are ok; degraded (HTTP 503) otherwise */
                            status: "ok" | "degraded";
                            /** @description Only with a staff Bearer token, or for everyone when the public mempool view setting is on */
                            checks?: {
                                node: {
                                    /** @description The node answered within the last few seconds and its last answer was not an error */
                                    ok: boolean;
                                    /** @description How far the portal's mirror of the node's mempool trails the node (ms) */
                                    lag_ms: number;
                                    last_contact_at: string | null;
                                    /** @description Why it is not ok */
                                    error?: string;
                                };
                                database: {
                                    /** @description A trivial query answered in time */
                                    ok: boolean;
                                    latency_ms: number | null;
                                    /** @description Why it is not ok: unreachable, timed out, or failed */
                                    error?: string;
                                };
                                mempool: {
                                    /** @description A projection of the next blocks exists, so submissions can be priced */
                                    ok: boolean;
                                    /** @description How the mirror follows the node: starting, zmq or polling */
                                    mode: string;
                                    tx_count: number | null;
                                    updated_at: string | null;
                                };
                                jobs: {
                                    queued: number | null;
                                    oldest_age_s: number | null;
                                };
                            };
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description ok (HTTP 200) when the node, the database and the mempool projection are ok; degraded (HTTP 503) otherwise */
                            status: "ok" | "degraded";
                            /** @description Only with a staff Bearer token, or for everyone when the public mempool view setting is on */
                            checks?: {
                                node: {
                                    /** @description The node answered within the last few seconds and its last answer was not an error */
                                    ok: boolean;
                                    /** @description How far the portal's mirror of the node's mempool trails the node (ms) */
                                    lag_ms: number;
                                    last_contact_at: string | null;
                                    /** @description Why it is not ok */
                                    error?: string;
                                };
                                database: {
                                    /** @description A trivial query answered in time */
                                    ok: boolean;
                                    latency_ms: number | null;
                                    /** @description Why it is not ok: unreachable, timed out, or failed */
                                    error?: string;
                                };
                                mempool: {
                                    /** @description A projection of the next blocks exists, so submissions can be priced */
                                    ok: boolean;
                                    /** @description How the mirror follows the node: starting, zmq or polling */
                                    mode: string;
                                    tx_count: number | null;
                                    updated_at: string | null;
                                };
                                jobs: {
                                    queued: number | null;
                                    oldest_age_s: number | null;
                                };
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with a local staff account (for pools without single sign-on, and break-glass access) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        username: string;
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Bearer token for the staff API */
                            token: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/login/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A fresh token for a local staff account's valid one (the web app renews a minute before expiry); refused once the account is removed or changed */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Bearer token for the staff API */
                            token: string;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/auth-config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where staff sign in: issuer, client id and scopes for the browser */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The OpenID provider's issuer URL (its discovery document lives under it) */
                            issuer: string;
                            client_id: string;
                            /** @description Space-separated scopes to request */
                            scopes: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/staff/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in staff member and their admin flag */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            username: string;
                            email: string | null;
                            groups: string[];
                            /** @description Member of the administrators' group: may change data */
                            is_admin: boolean;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/audits/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The request audit trail, newest first, filtered and paged */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description An IP address matches ip_address exactly; any other text matches endpoints containing it, ignoring case (e.g. 'submit' finds /rest-api/submit-tx and /rest-api/submit-package). Blank means no filter. */
                    ip_or_endpoint?: string;
                    /** @description Exact client code. Blank means no filter. */
                    client_code?: string;
                    /** @description Earliest time included, 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                    from_date?: string;
                    /** @description Latest time included (the whole second), 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 23:59:59'. '2025-01-31 23: 59: 59' (a space after each colon, as the dashboard sends some end dates) is read the same. */
                    to_date?: string;
                    /** @description HTTP method; 'All' or absent means any */
                    method?: "All" | "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";
                    /** @description true: successful requests only; false: failed only; absent: both */
                    is_success?: boolean;
                    /** @description Internal: signed-in staff whose token the portal verified; External: everyone else; absent: both */
                    source_type?: "Internal" | "External";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                ip_address: string | null;
                                endpoint: string | null;
                                http_method: string | null;
                                client_code: string | null;
                                client_code_info: {
                                    client_name: string;
                                    discount_percentage: number;
                                } | null;
                                /** Format: date-time */
                                request_at: string;
                                request_payload: string | null;
                                response_payload: string | null;
                                response_time: number | null;
                                error_message: string | null;
                                source_type: ("Internal" | "External") | null;
                                is_success: boolean;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Clients, newest first, filtered and paged; or, with ?list_clients, every client name */
        get: {
            parameters: {
                query?: {
                    /** @description Present (with any value, e.g. `?list_clients`): answer every client name, sorted, for the discount form's picker, and ignore the other parameters */
                    list_clients?: string;
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Client names starting with this text, ignoring case. Blank means no filter. */
                    client_name?: string;
                    /** @description Email addresses starting with this text, ignoring case. Blank means no filter. */
                    email?: string;
                    /** @description Organization names starting with this text, ignoring case. Blank means no filter. */
                    organization_name?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                name: string;
                                email: string | null;
                                phone_number: string | null;
                                alternate_phone: string | null;
                                address: string | null;
                                organization_name: string | null;
                                organization_email: string | null;
                                description: string | null;
                                /** @description False while any discount code is issued to the client. Submissions name a client only through one of its codes (tx_submissions and package_submissions by discount_code_id and client_code, failed_txs by client_code), so a client with submissions has codes too, and stays undeletable until those codes are deleted. */
                                is_deletable: boolean;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        } | {
                            /** @description Every client name, sorted ignoring case */
                            client_names: string[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/{id}/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A client's webhook URL (null when it has none); the secret is never shown again */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhook: {
                                client_id: number;
                                url: string;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                            } | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Set a client's webhook URL (administrators); a new webhook, or rotate_secret, answers the signing secret this once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description https:// (or http://) URL that receives the events of every submission made with this client's codes */
                        url: string;
                        /** @description Make a new signing secret (the old one stops signing at once) */
                        rotate_secret?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhook: {
                                client_id: number;
                                url: string;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                            };
                            /** @description The signing secret, present when it is new: shown this once */
                            secret?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        /** Remove a client's webhook (administrators): no more events are sent to it, those still due for transactions already followed included */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhook: {
                                client_id: number;
                                url: string;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                            } | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/{id}/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The events sent to a client's webhook, newest first */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    limit?: number;
                };
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                txid: string;
                                event: string;
                                url: string;
                                state: "pending" | "delivered" | "failed";
                                attempts: number;
                                last_status: number | null;
                                last_error: string | null;
                                /** Format: date-time */
                                created_at: string;
                                last_attempt_at: string | null;
                                delivered_at: string | null;
                            }[];
                            total: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client-code/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Discount codes, newest first, filtered and paged */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Codes starting with this text, ignoring case. Blank means no filter. */
                    client_code?: string;
                    /** @description Codes created at or after this time, 'yyyy-MM-dd HH:mm:ss' in UTC */
                    from_date?: string;
                    /** @description Codes created at or before this time (the whole second), 'yyyy-MM-dd HH:mm:ss' in UTC; '23: 59: 59' is read as '23:59:59' */
                    to_date?: string;
                    /** @description true: Active codes only; false: Inactive only; absent: All */
                    status?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                /** @description Generated by the server: 10 letters and digits, read-only */
                                code: string;
                                client_name: string;
                                description: string | null;
                                discount_percentage: number;
                                /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                                valid_from: string;
                                /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-12-31 23:59:59'; the code is valid to the end of that second */
                                valid_until: string;
                                /** @description true: Active; false: Inactive */
                                status: boolean;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/settings/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every setting, with its type and bounds for the edit form */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                /** @description snake_case name, shown title-cased */
                                item: string;
                                /** @description Always text; value_type says how to read it */
                                value: string;
                                description: string;
                                /**
                                 * @description How the value is checked: number (decimal, within min_value and max_value), boolean ('true' or 'false'), text, email or url (http or https)
                                 * @enum {unknown}
                                 */
                                value_type: "number" | "boolean" | "text" | "email" | "url";
                                min_value: number | null;
                                max_value: number | null;
                                /** @description False for an optional setting: a blank value is allowed and means 'not set' */
                                required: boolean;
                                /** Format: date-time */
                                updated_at: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/setting-logs/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Changes to settings, newest first, filtered and paged */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description The setting's item, lowercase snake_case (e.g. fee_rate_floor), matched exactly. 'Fee Rate Floor' is read as fee_rate_floor. Blank means no filter. */
                    item?: string;
                    /** @description The Email filter: staff whose email (or, without one, username) starts with this text, ignoring case. Blank means no filter. */
                    username?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                /** @description snake_case; shown title-cased */
                                item: string;
                                username: string;
                                email: string | null;
                                previous_value: string | null;
                                updated_value: string | null;
                                /** Format: date-time */
                                updated_time: string;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/discount-logs/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Discount codes created, updated and deleted, newest first, filtered and paged */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Exact client code. Blank means no filter. */
                    client_code?: string;
                    /** @description The Email filter: staff whose email (or, without one, username) starts with this text, ignoring case. Blank means no filter. */
                    username?: string;
                    /** @description Create, Update or Delete; 'All' or absent means any */
                    action?: "All" | "Create" | "Update" | "Delete";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                username: string;
                                email: string | null;
                                /** @enum {unknown} */
                                action: "Create" | "Update" | "Delete";
                                client_code: string | null;
                                previous_values: string | null;
                                updated_values: string | null;
                                /** Format: date-time */
                                action_time: string;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client-logs/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Clients created, updated and deleted, newest first, filtered and paged */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description The Email filter: staff whose email (or, without one, username) starts with this text, ignoring case. Blank means no filter. */
                    username?: string;
                    /** @description Client names starting with this text, ignoring case. Blank means no filter. */
                    client_name?: string;
                    /** @description Create, Update or Delete; 'All' or absent means any */
                    action?: "All" | "Create" | "Update" | "Delete";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                username: string;
                                email: string | null;
                                client_name: string | null;
                                /** @enum {unknown} */
                                action: "Create" | "Update" | "Delete";
                                previous_values: string | null;
                                updated_values: string | null;
                                /** Format: date-time */
                                timestamp: string;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/txs/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Open failed submissions (Failed by default, or Timeout), newest first, filtered and paged (each hex shortened), with every matching id */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Which open failures: Failed (the default) or Timeout */
                    tx_status?: "Failed" | "Timeout";
                    /** @description A transaction id or its start, in either case (for a package, the id of its last transaction). Blank means no filter. */
                    txid?: string;
                    /** @description Exact client code the submission carried. Blank means no filter. */
                    client_code?: string;
                    /** @description Earliest time included, 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                    from_date?: string;
                    /** @description Latest time included (the whole second), 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 23:59:59'. '2025-01-31 23: 59: 59' (a space after each colon, as the dashboard sends some end dates) is read the same. */
                    to_date?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                /** @description The transaction id; for a package, the id of its last transaction */
                                txid: string;
                                /** @description The raw transaction (for a package, its last transaction), shortened when longer than 64 characters: its first and last 24 characters joined by "…"; the whole length is in the matching *_length field; the whole of it from GET /rest-api/txs/{id}/hex */
                                tx_hex: string;
                                /** @description How many characters the whole tx_hex has */
                                tx_hex_length: number;
                                client_code: string | null;
                                /**
                                 * Format: date-time
                                 * @description When the submission first failed
                                 */
                                timestamp: string;
                                /** @description Why each attempt failed, oldest first: a node's refusal in plain words followed by the node's own, '(node: code, details)'; other errors as they were */
                                errors: string[];
                                /** @enum {unknown} */
                                submission_type: "tx" | "package";
                                /** @description How many times the submission failed */
                                attempts: number;
                                /** @enum {unknown} */
                                status: "Failed" | "Timeout";
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                            /** @description Every id matching the filters, over all pages, newest first (for select-all) */
                            ids: number[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/txs/{id}/hex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One failed submission's whole transaction hex (the list shortens it): for the copy button */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The failed transaction row id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            txid: string;
                            /** @description The whole raw transaction; for a package, its last transaction */
                            tx_hex: string;
                            /** @description A package's members, whole, in order; null for a single transaction */
                            tx_hexes: string[] | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/metrics/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Submissions, failures, acceptance and revenue per UTC day, and the node's health now */
        get: {
            parameters: {
                query?: {
                    /** @description UTC days to cover, today included (1-90) */
                    days?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            days: number;
                            /**
                             * Format: date
                             * @description First UTC day covered
                             */
                            from: string;
                            /**
                             * Format: date
                             * @description Last UTC day covered (today)
                             */
                            to: string;
                            /** @description One entry per day, oldest first, days without activity included */
                            daily: {
                                /**
                                 * Format: date
                                 * @description UTC day, yyyy-MM-dd
                                 */
                                day: string;
                                /** @description Transactions the node accepted (not pending) plus packages submitted */
                                accepted: number;
                                /** @description Submissions refused, for any reason (fee too low, not a transaction, missing inputs, the node said no, unavailable...), from the audit trail; requests turned away by the rate limit are not counted */
                                refused: number;
                                /** @description Failed transactions kept for staff to retry (their refusals are counted in refused too) */
                                failed: number;
                                /** @description accepted / (accepted + refused): of the submissions the portal judged, the share it accepted; null when there were neither */
                                acceptance_ratio: number | null;
                                /** @description Fees of the accepted transactions and packages (sats) */
                                revenue_sats: number;
                            }[];
                            totals: {
                                accepted: number;
                                refused: number;
                                failed: number;
                                /** @description accepted / (accepted + refused): of the submissions the portal judged, the share it accepted; null when there were neither */
                                acceptance_ratio: number | null;
                                revenue_sats: number;
                                /** @description The refused submissions by reason, most first */
                                refused_by_reason: {
                                    /**
                                     * @description fee_too_low; invalid (not a transaction, a malformed PSBT or package, a body the API refuses); missing_inputs; already_confirmed; conflict (with the pool mempool); node_refused (any other verdict of the node); maintenance; unavailable (the node or the database); connection_closed (the body never fully arrived)
                                     * @enum {unknown}
                                     */
                                    reason: "fee_too_low" | "invalid" | "missing_inputs" | "already_confirmed" | "conflict" | "node_refused" | "maintenance" | "unavailable" | "connection_closed";
                                    count: number;
                                }[];
                            };
                            node: {
                                /** @description The mempool mirror's last exchange with the node succeeded */
                                connected: boolean;
                                /** @description How the mirror follows the node: starting, zmq or polling */
                                mode: string;
                                zmq_connected: boolean;
                                /** @description How far the mirror trails the node's mempool */
                                lag_seconds: number;
                                /** @description When the node last answered; null before the first answer */
                                last_contact_at: string | null;
                                last_error: string | null;
                                /** @description The newest block seen; null before the first projection */
                                tip_height: number | null;
                                /** @description null before the first projection */
                                mempool_tx_count: number | null;
                                mempool_vsize: number | null;
                                /** @description Node RPC failures since this server started */
                                rpc_errors_total: number;
                                /** @description By method and kind, most first */
                                rpc_errors: {
                                    method: string;
                                    /** @description refused (the node answered an error), unreachable, timeout, http or other */
                                    kind: string;
                                    count: number;
                                }[];
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/tx-puller/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Accepted submissions, single transactions or packages, newest first, filtered and paged (each hex shortened); or all of them as CSV (each hex whole) */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Exact client code. Blank means no filter. */
                    client_code?: string;
                    /** @description A transaction id or its start, any case; a package matches when it holds such a transaction. Blank means no filter. */
                    txid?: string;
                    /** @description Earliest time included, 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                    from_date?: string;
                    /** @description Latest time included (the whole second), 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 23:59:59'. '2025-01-31 23: 59: 59' (a space after each colon, as the dashboard sends some end dates) is read the same. */
                    to_date?: string;
                    /** @description true: every matching row (page and limit ignored) as a CSV attachment instead of a page of JSON */
                    download?: boolean;
                    /** @description Single transactions (default) or packages */
                    submission_type?: "tx_submissions" | "package_submissions";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of rows; with download=true, tx-puller-{submission_type}-report-{yyyy-mm-dd-hh-mm-ss}.csv */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: ({
                                id: number;
                                client_code: string | null;
                                /**
                                 * Format: date-time
                                 * @description When it was submitted
                                 */
                                timestamp: string;
                                txid: string;
                                /** @description The raw transaction, shortened when longer than 64 characters: its first and last 24 characters joined by "…"; the whole length is in the matching *_length field (the download carries it whole; so does GET /rest-api/tx-puller/{id}/hex) */
                                tx_hex: string;
                                /** @description How many characters the whole tx_hex has */
                                tx_hex_length: number;
                                tx_size: number | null;
                                /** @description sat/vB */
                                fee_rate: number;
                                /** @description sats */
                                total_fee: number;
                                /** @description The slipstream multiple: fee rate over the market rate when submitted */
                                multiplier: number;
                            } | {
                                id: number;
                                client_code: string | null;
                                /**
                                 * Format: date-time
                                 * @description When it was submitted
                                 */
                                timestamp: string;
                                /** @description The members the node accepted, in package order */
                                txids: string[];
                                /** @description Each member's raw transaction, in order, each shortened when longer than 64 characters: its first and last 24 characters joined by "…"; the whole length is in the matching *_length field (the download carries them whole; so does GET /rest-api/tx-puller/{id}/hex) */
                                txs_hex: string[];
                                /** @description How many characters each whole member hex has */
                                txs_hex_length: number[];
                                tx_size: number | null;
                                fee_rate: number | null;
                                total_fee: number | null;
                                multiplier: number | null;
                            })[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                        "text/csv": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/tx-puller/{id}/hex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One accepted submission's whole transaction hex, or a package's every member (pages shorten them): for the copy button */
        get: {
            parameters: {
                query?: {
                    /** @description Which table the id is in: single transactions (default) or packages */
                    submission_type?: "tx_submissions" | "package_submissions";
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            /** @description The transaction, or the package members, in order */
                            txids: string[];
                            /** @description Each one whole, in the same order */
                            txs_hex: string[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/tx-reports/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Revenue and premium of accepted transactions and packages, newest first, filtered and paged; or all of them as CSV */
        get: {
            parameters: {
                query?: {
                    /** @description Page number, from 1 */
                    page?: number;
                    /** @description Rows per page: 10, 20, 50, 100 */
                    limit?: 10 | 20 | 50 | 100;
                    /** @description Exact client code. Blank means no filter. */
                    client_code?: string;
                    /** @description A transaction id or its start, any case; a package matches when it holds such a transaction. Blank means no filter. */
                    txid?: string;
                    /** @description Earliest time included, 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                    from_date?: string;
                    /** @description Latest time included (the whole second), 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 23:59:59'. '2025-01-31 23: 59: 59' (a space after each colon, as the dashboard sends some end dates) is read the same. */
                    to_date?: string;
                    /** @description true: every matching row (page and limit ignored) as a CSV attachment instead of a page of JSON */
                    download?: boolean;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of rows; with download=true, tx-report-{yyyy-mm-dd-hh-mm-ss}.csv */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                /** @description Unique within the report: 'tx-{id}' or 'package-{id}' */
                                id: string;
                                /** @enum {unknown} */
                                kind: "tx" | "package";
                                /**
                                 * Format: date-time
                                 * @description When it was submitted
                                 */
                                timestamp: string;
                                /** @description The transaction's id; for a package, its members' ids */
                                txid: string | string[];
                                client_code: string | null;
                                size_bytes: number | null;
                                fee_rate: number | null;
                                slipstream_multiplier: number | null;
                                revenue: number | null;
                                premium: number | null;
                                public_network: string | null;
                                public_network_by_policy: string | null;
                            }[];
                            /** @description ceil(total_records / limit); 0 when nothing matches */
                            total_pages: number;
                            /** @description Rows matching the filters, over all pages */
                            total_records: number;
                        };
                        "text/csv": string;
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/synchro/table": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the pool has synchronised from its node: the mempool mirror's and the block tracker's state */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** Format: date-time */
                            generated_at: string;
                            /** @description The mirror of the node's mempool */
                            mempool: {
                                /** @description How the mirror follows the node: 'zmq' (notifications) or 'polling' */
                                mode: string;
                                zmq_connected: boolean;
                                /** @description How far the mirror trails the node */
                                lag_seconds: number;
                                last_contact_at: string | null;
                                last_error: string | null;
                                tx_count: number | null;
                                vsize: number | null;
                                full_resyncs: number;
                                polls: number;
                                /** @description Notification sequences that skipped (each repaired by a poll) */
                                gaps: number;
                                /** @description Block projections computed since start */
                                projections: number;
                            };
                            /** @description The block tracker: the chain tip and whose the recent blocks are */
                            blocks: {
                                tip_height: number | null;
                                tip_hash: string | null;
                                last_24h_odds: number | null;
                                last_7d_odds: number | null;
                                odds_note: string | null;
                                /** @description The latest blocks the tracker read, newest first */
                                recent: {
                                    height: number;
                                    hash: string;
                                    /** @description Unix seconds (block header time) */
                                    time: number;
                                    txCount: number;
                                    /** @description Mined by this pool (recognised by its coinbase tag or payout addresses) */
                                    ours: boolean;
                                }[];
                            };
                            /** @description The projection's next block against the node's own block template (getblocktemplate, at most every 30 s) */
                            template: {
                                /** @description Whose next block the status answers use: the projection's, or the node's template while the two differ */
                                following: "projection" | "node_template";
                                checked_at: string | null;
                                checks: number;
                                last_error: string | null;
                                template_txs: number | null;
                                projection_txs: number | null;
                                template_only: number | null;
                                projection_only: number | null;
                                agreement: number | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/audits/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verify the audit trail's hash chain: every row as written, none removed (administrators) */
        get: {
            parameters: {
                query?: {
                    /** @description A head_id an earlier verification answered (with anchor_hash) */
                    anchor_id?: number;
                    /** @description The head_hash it answered with it: the row must still have that hash */
                    anchor_hash?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            /** @description True when every row up to the newest one chained is as it was written */
                            ok: boolean;
                            /** @description Rows checked and found intact, in id order from the first */
                            verified: number;
                            head_id: number | null;
                            /** @description SHA-256 of the chain up to head_id, in hex. Note both down outside the portal: anyone who can write to the database could recompute every hash, but a later verification with anchor_id and anchor_hash set to them fails if any row up to head_id changed. */
                            head_hash: string;
                            /** @description When ok is false: the first row that fails (for rows removed at the end, the newest row written) */
                            first_broken_id?: number;
                            last_intact_id?: number | null;
                            /** @description changed: the row does not match its hash; removed: rows before it (or at the end, or the anchor row) are missing; unchained: a row without a valid place in the chain (not written by the portal); rewritten: the anchor row no longer has anchor_hash (the chain was recomputed) */
                            reason?: "changed" | "removed" | "unchained" | "rewritten";
                            message?: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/add": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a client (administrators) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Required and unique ('Name is required') */
                        name?: null | string;
                        /** @description An email address ('Email is invalid') */
                        email?: null | string;
                        /** @description Digits only, at most 20 ('Phone number is invalid') */
                        phone_number?: null | string;
                        /** @description Digits only, at most 20 ('Alternate phone number is invalid') */
                        alternate_phone?: null | string;
                        /** @description Postal address */
                        address?: null | string;
                        /** @description The client's organization */
                        organization_name?: null | string;
                        /** @description An email address ('Organization email is invalid') */
                        organization_email?: null | string;
                        /** @description Notes about the client */
                        description?: null | string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            name: string;
                            email: string | null;
                            phone_number: string | null;
                            alternate_phone: string | null;
                            address: string | null;
                            organization_name: string | null;
                            organization_email: string | null;
                            description: string | null;
                            /** @description False while any discount code is issued to the client. Submissions name a client only through one of its codes (tx_submissions and package_submissions by discount_code_id and client_code, failed_txs by client_code), so a client with submissions has codes too, and stays undeletable until those codes are deleted. */
                            is_deletable: boolean;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/update/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace every field of a client (administrators); a field left out is cleared */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Required and unique ('Name is required') */
                        name?: null | string;
                        /** @description An email address ('Email is invalid') */
                        email?: null | string;
                        /** @description Digits only, at most 20 ('Phone number is invalid') */
                        phone_number?: null | string;
                        /** @description Digits only, at most 20 ('Alternate phone number is invalid') */
                        alternate_phone?: null | string;
                        /** @description Postal address */
                        address?: null | string;
                        /** @description The client's organization */
                        organization_name?: null | string;
                        /** @description An email address ('Organization email is invalid') */
                        organization_email?: null | string;
                        /** @description Notes about the client */
                        description?: null | string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            name: string;
                            email: string | null;
                            phone_number: string | null;
                            alternate_phone: string | null;
                            address: string | null;
                            organization_name: string | null;
                            organization_email: string | null;
                            description: string | null;
                            /** @description False while any discount code is issued to the client. Submissions name a client only through one of its codes (tx_submissions and package_submissions by discount_code_id and client_code, failed_txs by client_code), so a client with submissions has codes too, and stays undeletable until those codes are deleted. */
                            is_deletable: boolean;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/delete/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a client (administrators); refused with 409 while it is not is_deletable */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/{id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A client's API keys, newest first (administrators); the keys themselves are never shown again */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                client_id: number;
                                /** @description The first characters of the key, to tell keys apart */
                                key_prefix: string;
                                created_by: string;
                                /** Format: date-time */
                                created_at: string;
                                revoked_at: string | null;
                                revoked_by: string | null;
                                last_used_at: string | null;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Issue an API key to a client (administrators): the answer holds the key, shown this once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The key itself: shown this once, never again (only its hash is kept); send it as `Authorization: Bearer <key>` */
                            secret: string;
                            api_key: {
                                id: number;
                                client_id: number;
                                /** @description The first characters of the key, to tell keys apart */
                                key_prefix: string;
                                created_by: string;
                                /** Format: date-time */
                                created_at: string;
                                revoked_at: string | null;
                                revoked_by: string | null;
                                last_used_at: string | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/{id}/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a client's API key (administrators): it stops working at once */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The client's id */
                    id: number;
                    /** @description The key's id */
                    keyId: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            client_id: number;
                            /** @description The first characters of the key, to tell keys apart */
                            key_prefix: string;
                            created_by: string;
                            /** Format: date-time */
                            created_at: string;
                            revoked_at: string | null;
                            revoked_by: string | null;
                            last_used_at: string | null;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client/{id}/webhook-deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send an event to the client's webhook again, with the same delivery id (administrators) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The client's id */
                    id: number;
                    /** @description The delivery's id */
                    deliveryId: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client-code/add": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Issue a discount code to a client (administrators); the server makes the code */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The name of an existing client (GET /rest-api/client/view?list_clients) */
                        client_name?: null | string;
                        /** @description Blank or absent: none */
                        description?: null | string;
                        /** @description A whole number 0-99, as a number or as digits */
                        discount_percentage?: null | string | number;
                        /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                        valid_from?: null | string;
                        /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, not before valid_from; '2025-12-31 23: 59: 59' (as the dashboard sends it) is read as '2025-12-31 23:59:59' */
                        valid_until?: null | string;
                        /** @description true: Active, false: Inactive. Absent or null: Active for a new code, unchanged on update */
                        status?: null | boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            /** @description Generated by the server: 10 letters and digits, read-only */
                            code: string;
                            client_name: string;
                            description: string | null;
                            discount_percentage: number;
                            /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                            valid_from: string;
                            /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-12-31 23:59:59'; the code is valid to the end of that second */
                            valid_until: string;
                            /** @description true: Active; false: Inactive */
                            status: boolean;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client-code/update/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change a discount (administrators); its code never changes */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The name of an existing client (GET /rest-api/client/view?list_clients) */
                        client_name?: null | string;
                        /** @description Blank or absent: none */
                        description?: null | string;
                        /** @description A whole number 0-99, as a number or as digits */
                        discount_percentage?: null | string | number;
                        /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                        valid_from?: null | string;
                        /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, not before valid_from; '2025-12-31 23: 59: 59' (as the dashboard sends it) is read as '2025-12-31 23:59:59' */
                        valid_until?: null | string;
                        /** @description true: Active, false: Inactive. Absent or null: Active for a new code, unchanged on update */
                        status?: null | boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: number;
                            /** @description Generated by the server: 10 letters and digits, read-only */
                            code: string;
                            client_name: string;
                            description: string | null;
                            discount_percentage: number;
                            /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-01-31 00:00:00' */
                            valid_from: string;
                            /** @description 'yyyy-MM-dd HH:mm:ss' in UTC, e.g. '2025-12-31 23:59:59'; the code is valid to the end of that second */
                            valid_until: string;
                            /** @description true: Active; false: Inactive */
                            status: boolean;
                            /** Format: date-time */
                            created_at: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/client-code/delete/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a discount code (administrators) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The record's id */
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            message: string;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/settings/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change settings (administrators): all of them or none; answers the settings as changed */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description The settings to change, applied together or not at all */
            requestBody: {
                content: {
                    "application/json": {
                        id: number;
                        /** @description The setting's item, as the view gave it: a check that the id names the setting meant */
                        item: string;
                        /** @description The new value, checked against the setting's value_type; blank only for a setting that is not required ('Value is required'). A value equal to the stored one is always accepted */
                        value?: null | string | number | boolean;
                        /** @description The new description; absent leaves it as it is */
                        description?: string;
                        /** @description Read-only, as the view gives it; ignored */
                        value_type?: string;
                        min_value?: number | null;
                        max_value?: number | null;
                        /** @description Read-only, as the view gives it; ignored */
                        required?: boolean;
                        /** @description Read-only, as the view gives it; ignored */
                        updated_at?: string;
                    }[];
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            result: {
                                id: number;
                                /** @description snake_case name, shown title-cased */
                                item: string;
                                /** @description Always text; value_type says how to read it */
                                value: string;
                                description: string;
                                /**
                                 * @description How the value is checked: number (decimal, within min_value and max_value), boolean ('true' or 'false'), text, email or url (http or https)
                                 * @enum {unknown}
                                 */
                                value_type: "number" | "boolean" | "text" | "email" | "url";
                                min_value: number | null;
                                max_value: number | null;
                                /** @description False for an optional setting: a blank value is allowed and means 'not set' */
                                required: boolean;
                                /** Format: date-time */
                                updated_at: string;
                            }[];
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            /** @description The first failing field's message, exactly as the form shows it */
                            message: string;
                            /** @description Field name (or setting item) to its message, when the failure is a field's */
                            errors?: {
                                [key: string]: string;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rest-api/retry-txs/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Move failed transactions into retry (administrators): those still Failed or Timeout become Retrying and a retry job is queued for each, once however often they are asked for; the others are skipped */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The failed transactions to retry, 1 to 10000 ids; repeats count once */
                        ids: number[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success";
                            message: string;
                            /** @description Transactions moved from Failed or Timeout into retry, each with a retry job queued */
                            queued: number;
                            /** @description Ids left as they were: unknown, already retrying, or resolved */
                            skipped: number;
                        };
                    };
                };
                /** @description Default Response */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mempool/api/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The /mempool/ dashboard: projected blocks, fee histogram, recent blocks, the pool's share */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The node's network: mainnet, testnet, testnet4, signet or regtest */
                            network: string;
                            /** @description When the engine last updated (Unix ms) */
                            updatedAtMs: number;
                            /** @description How far the mirror trails the node (ms) */
                            lagMs: number;
                            mempool: {
                                txCount: number;
                                vsize: number;
                                /** @description sats */
                                totalFees: number;
                            };
                            /** @description The next blocks the pool would build, in order */
                            projectedBlocks: {
                                /** @description 0 = the next block the pool would build */
                                index: number;
                                txCount: number;
                                /** @description weight units; a full block is 4,000,000 */
                                weight: number;
                                vsize: number;
                                /** @description sats */
                                totalFees: number;
                                /** @description Lowest fee rate in the block (sat/vB) */
                                minRate: number;
                                /** @description Highest fee rate in the block (sat/vB) */
                                maxRate: number;
                                /** @description Median fee rate in the block (sat/vB) */
                                medianRate: number;
                            }[];
                            /** @description The mempool by fee rate, ascending bounds */
                            histogram: {
                                /** @description Lower bound of the bucket; it runs to the next bucket's bound (sat/vB) */
                                minRate: number;
                                txCount: number;
                                vsize: number;
                            }[];
                            /** @description The latest mined blocks, newest first */
                            recentBlocks: {
                                height: number;
                                hash: string;
                                /** @description Unix seconds (block header time) */
                                time: number;
                                txCount: number;
                                /** @description Mined by this pool (recognised by its coinbase tag or payout addresses) */
                                ours: boolean;
                            }[];
                            poolShare: {
                                last24h: number | null;
                                last7d: number | null;
                                expectedNextBlockSeconds: number | null;
                            };
                        };
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mempool/api/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The /mempool/ dashboard, live: Server-Sent Events of every new state */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Server-Sent Events: `event: state` with the state as one JSON data line (the shape of GET /mempool/api/state), the current state at once when there is one, then each update (at most one a second, the newest); a comment line every 15 s keeps the stream open; the stream ends after 5 minutes (reconnect, sending the token again). */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Default Response */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "error";
                            message: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
