import type { ReactNode } from 'react';

export interface FaqItem {
  /** Stable and unique: used for element ids and React keys. */
  id: string;
  question: string;
  answer: ReactNode;
}

/**
 * The twelve questions of docs/behaviour.md#faq, in its order. The answers follow
 * docs/behaviour.md#what-the-product-does: a minimum fee threshold exists but its value is never
 * stated here; mining is never promised; transactions stay private until
 * mined; replace-by-fee needs a shared input and a higher fee; child-pays-for-
 * parent works one transaction at a time and in a package
 * (docs/behaviour.md#child-pays-for-parent): a child lifts a parent
 * it submits with, or after, or one already public.
 */
export const FAQ_ITEMS: ReadonlyArray<FaqItem> = [
  {
    id: 'what-is-slipstream',
    question: 'What is Slipstream?',
    answer: (
      <>
        <p>
          Slipstream is a direct line into our mining pool&apos;s mempool. You paste a signed, raw Bitcoin transaction (or
          several of them as a package) and it goes straight to the pool&apos;s own node, without travelling through the
          public peer-to-peer network first.
        </p>
        <p>
          That lets you submit transactions that ordinary nodes refuse to relay because they are large or non-standard,
          provided they are valid under Bitcoin&apos;s consensus rules. After submitting you get a personal link where you can
          follow the transaction until it is mined.
        </p>
      </>
    ),
  },
  {
    id: 'why-use-slipstream',
    question: 'Why would I use Slipstream?',
    answer: (
      <>
        <p>Most nodes only relay transactions that fit their default &ldquo;standard&rdquo; policy. Slipstream is useful when:</p>
        <ul>
          <li>your transaction is larger than the standard relay limits, up to what the consensus rules allow;</li>
          <li>it uses scripts or outputs that are valid but non-standard, so the public network will not carry it;</li>
          <li>you would rather it was not visible to the world before it is confirmed.</li>
        </ul>
        <p>If your transaction is ordinary, broadcasting it through any node works just as well.</p>
      </>
    ),
  },
  {
    id: 'how-to-submit',
    question: 'How do I submit a transaction?',
    answer: (
      <>
        <ol>
          <li>Sign your transaction in your own wallet or software. We never ask for keys.</li>
          <li>
            Paste the raw transaction hex into the box on the <strong>SUBMIT TX/PACKAGE</strong> tab. To send a package,
            paste several hex strings separated by commas, parents before children.
          </li>
          <li>Check the decoded details, then press the submit button.</li>
        </ol>
        <p>
          If the transaction is accepted you get a link to its status page and a copy of its transaction id. If it is
          refused, the reason the node gave is shown so you can fix it.
        </p>
      </>
    ),
  },
  {
    id: 'is-mining-guaranteed',
    question: 'Is my transaction guaranteed to be mined?',
    answer: (
      <>
        <p>
          No. A transaction that follows the consensus rules and meets our minimum fee threshold is accepted into our
          mempool, but acceptance is not a promise of confirmation. It can only be mined when our pool finds a block, and
          transactions paying more compete for the same space.
        </p>
        <p>
          The status page shows where your transaction stands and its odds of being mined, judged over the last 24 hours
          and the last 7 days, so you can decide whether to raise the fee.
        </p>
      </>
    ),
  },
  {
    id: 'support-the-miner',
    question: 'Should I use Slipstream to support the miner?',
    answer: (
      <p>
        Use it when it suits your transaction, not as a favour. Fees from transactions in our blocks go to the pool and the
        miners who point their hashrate at it, so every transaction mined through Slipstream helps fund the work that
        secures Bitcoin. But there is no membership, subscription or obligation: you pay the fee your transaction carries
        and nothing else.
      </p>
    ),
  },
  {
    id: 'privacy',
    question: 'Is my transaction private?',
    answer: (
      <>
        <p>
          Yes, until it is mined. We do not broadcast submitted transactions to other nodes or pools, so they do not appear
          in public mempools while they wait. Once mined, a transaction is part of the blockchain and visible to everyone,
          like any other.
        </p>
        <p>
          We do not ask for your name, email address or an account to submit. If you also broadcast the same transaction
          elsewhere yourself, it is of course no longer private.
        </p>
      </>
    ),
  },
  {
    id: 'censorship',
    question: 'Does Slipstream censor transactions?',
    answer: (
      <p>
        We do not pick transactions by who sends them or what they are for. Whether a submission is accepted is decided by
        our node&apos;s checks: the consensus rules, its own policy and our minimum fee threshold; when it refuses one, you
        see its reason. Our Terms of Use do prohibit unauthorized copyrighted material and objectionable material, and like
        any business we must follow the law, including sanctions rules; transactions that break those terms may be refused
        or removed.
      </p>
    ),
  },
  {
    id: 'token-reveals',
    question: 'Are my token reveal transactions protected?',
    answer: (
      <p>
        A reveal transaction submitted here is not broadcast to the public network, so nobody watching public mempools can
        see it, copy its contents or try to get ahead of it with a transaction of their own before it is mined. That
        protection ends if the transaction is broadcast anywhere else. Token protocols are conventions outside Bitcoin&apos;s
        consensus rules: we process the transaction, we do not interpret or vouch for the tokens.
      </p>
    ),
  },
  {
    id: 'replace-by-fee',
    question: 'Do you support replace-by-fee (RBF)?',
    answer: (
      <p>
        Yes. Submit a new transaction that spends at least one of the same inputs as your earlier one and pays a higher fee;
        it replaces the earlier transaction in our mempool. The replacement must be valid and meet the minimum fee threshold
        on its own, like any submission.
      </p>
    ),
  },
  {
    id: 'child-pays-for-parent',
    question: 'Do you support child-pays-for-parent (CPFP)?',
    answer: (
      <>
        <p>
          Yes. A child transaction that spends an unconfirmed parent is judged together with it: the two clear the minimum
          when their fees together, divided by their sizes together, do. So a child can lift a parent that pays too little
          on its own, such as a transaction stuck in other nodes&apos; mempools.
        </p>
        <p>
          Paste the parent first, then the child; or both at once, parent first, separated by a comma. A parent below the
          minimum is not taken on its own, but we remember it for a day for the child you submit next from the same
          connection, and the two then enter our mempool together. A parent you submitted here earlier needs only the
          child, and so may one already waiting in the public network&apos;s mempool; if the child is refused because
          the node does not know its inputs, paste the parent too. Both status pages then say that the child pays for
          the parent.
        </p>
      </>
    ),
  },
  {
    id: 'how-can-the-miner-accept',
    question: 'How can your pool accept transactions other nodes refuse?',
    answer: (
      <p>
        &ldquo;Standard&rdquo; is a relay policy that nodes apply by default to protect themselves; it is not part of the
        consensus rules that decide whether a block is valid. A miner may put any transaction that follows the consensus
        rules into its block. Our node is configured to accept large and non-standard transactions, up to the consensus
        limits, that default policy turns away, and the blocks our pool mines with them are valid for every node on the
        network.
      </p>
    ),
  },
  {
    id: 'other-pools',
    question: 'Do other mining pools offer this?',
    answer: (
      <p>
        Some pools and services offer their own ways to send transactions to them directly, each with their own rules and
        prices. Slipstream is our pool&apos;s service: a transaction submitted here goes to our pool only, and we do not
        forward it to other pools.
      </p>
    ),
  },
];
