//! # An append-only chain, grown without a lock
//!
//! [`Chain`] is a list of nodes that only ever gains a node at its newest
//! end, while any number of threads read it and try to grow it through
//! `&self`. The growable filter (`mod.rs`) keeps its sub-filters in
//! one. An atomic pointer here publishes a node's memory to the threads
//! that load it (`Release`/`Acquire`), and turning that pointer back into
//! a reference is `unsafe`: each site has its `SAFETY:` argument (`grep -rn
//! "unsafe" src` lists every site in the crate).
//!
//! ## How a node is added
//!
//! Each node carries a *claim* word, open while the node is the newest and
//! nobody grows from it. A thread that wants the chain to grow past node
//! `N` ([`Chain::grow`]):
//!
//! 1. takes `N`'s claim with a compare-and-swap from open to claimed. At
//!    most one thread succeeds per node; the others are told the growth is
//!    taken and carry on without waiting (the growable filter keeps
//!    inserting into `N` meanwhile);
//! 2. builds the new node's value (allocates a sub-filter); only the
//!    claimant does, so a node's successor is normally allocated once. If
//!    building fails it reopens the claim, so that a later thread may try
//!    again;
//! 3. publishes the new node, whose `older` link is `N`, with a
//!    compare-and-swap of `newest` from `N` to it (`Release`). The claim
//!    stays taken for good: `N` is no longer the newest, and a thread still
//!    holding a reference to it can never grow from it again.
//!
//! The claim keeps the allocation to one thread; the compare-and-swap of
//! `newest` keeps the publication to one node. The second matters when
//! the claimant is slow: the growable filter lets threads that find `N`
//! far past its capacity stop waiting for it and add a successor
//! themselves, without the claim ([`Chain::grow_unclaimed`]). Each of
//! them, and the claimant, then tries to move `newest` from `N`; exactly
//! one compare-and-swap succeeds, and the others free their node, which no
//! other thread has seen. A plain store would let a second publisher
//! replace the first one's node, and with it every key already inserted
//! there (the negative control `growable.rs: publish_by_store_is_caught`).
//!
//! ## Why `Release`/`Acquire`
//!
//! Everything else in the crate is `Relaxed`, because no atomic there makes
//! other memory visible. Here one does: a thread that loads the new pointer
//! goes on to read the node behind it (its value, its link, the sub-filter's
//! words), all written by the publisher *before* its compare-and-swap.
//! `Release` on the compare-and-swap and `Acquire` on the loads of `newest`
//! make those writes happen-before every read through the pointer. With
//! `Relaxed` a reader could see the pointer and still read the node's
//! memory as it was before initialisation; the loom model `growable.rs: relaxed_publish_is_caught`
//! shows loom catching exactly that. The older nodes were published the
//! same way before their successors, and the `older` links are written once,
//! before publication, so a reader that acquired the newest pointer may walk
//! the whole chain.
//!
//! ## Lifetime
//!
//! Published nodes are freed only by `Drop` and [`Chain::retain_first`],
//! which take `&mut self`: no thread can be reading then. So a node reached
//! through `&self` lives as long as that borrow, which is the lifetime every
//! accessor returns. A node whose publication lost is freed at once by the
//! thread that built it: no other thread ever had its address.

#[cfg(loom)]
use crate::sync::fault::{self, Fault};
use crate::sync::{AtomicPtr, AtomicU64, Ordering};
use std::marker::PhantomData;

/// The claim word's values.
const OPEN: u64 = 0;
const CLAIMED: u64 = 1;

/// An append-only list of `T`, newest first, grown through `&self`.
pub(crate) struct Chain<T> {
    /// The newest node: never null, from a `Box` of this chain.
    newest: AtomicPtr<Node<T>>,
    /// The chain owns its nodes (for `Send`, `Sync` and drop check).
    owns: PhantomData<Box<Node<T>>>,
}

/// One node of a [`Chain`].
pub(crate) struct Node<T> {
    value: T,
    /// The node published before this one (null for the first), written
    /// before this node is published and never changed.
    older: *const Node<T>,
    /// How many nodes are older than this one.
    depth: usize,
    /// `OPEN` while nobody grows the chain from this node, else `CLAIMED`.
    claim: AtomicU64,
}

// SAFETY: a `Chain<T>` owns its nodes as a `Vec<Box<Node<T>>>` would, and
// hands out only `&T` through `&self`; the raw `older` links are read-only
// after publication. So it may cross threads when `T` may, and be shared
// when `T` may be shared and sent (the thread that drops the chain drops
// every `T`, as with `Mutex<T>`).
#[allow(unsafe_code)]
unsafe impl<T: Send> Send for Chain<T> {}
// SAFETY: as above.
#[allow(unsafe_code)]
unsafe impl<T: Send + Sync> Sync for Chain<T> {}

/// What [`Chain::grow`] or [`Chain::grow_unclaimed`] did.
pub(crate) enum Growth<E> {
    /// This call added a node.
    Grown,
    /// Another thread has claimed the node it was asked to grow from: it is
    /// adding (or has added) the successor.
    Taken,
    /// Another thread published a successor first; the node this call
    /// built, if any, was dropped unseen.
    Lost,
    /// Building the new value failed (the claim, if this call took it, is
    /// open again).
    Failed(E),
}

impl<T> Chain<T> {
    /// A chain of one node.
    pub(crate) fn new(first: T) -> Chain<T> {
        Chain::from_values(first, std::iter::empty())
    }

    /// A chain of `first` and then `later`, oldest first (a saved chain
    /// being read back). Every node but the newest is already grown from.
    pub(crate) fn from_values(first: T, later: impl IntoIterator<Item = T>) -> Chain<T> {
        let mut newest = Box::into_raw(Box::new(Node::first(first)));
        for value in later {
            // ORDERING: none needed: `newest` is ours alone until the
            // chain is returned, and sharing it (a move, `Arc`, scoped
            // threads) orders everything written here before any other
            // thread's access. The claim is taken for good: this node
            // already has a successor (unit test
            // `a_chain_read_back_cannot_grow_from_an_old_node`).
            node_ref(newest).claim.swap(CLAIMED, Ordering::Relaxed);
            newest = Box::into_raw(Box::new(Node::after(value, newest)));
        }
        Chain {
            newest: AtomicPtr::new(newest),
            owns: PhantomData,
        }
    }

    /// The newest node.
    #[inline]
    pub(crate) fn newest(&self) -> &Node<T> {
        // ORDERING (G13): Acquire pairs with the Release compare-and-swap in `publish`: the
        // node and everything older are initialised before we read them
        // (loom: `growable.rs: reader_racing_growth_sees_an_initialised_sub_filter`).
        node_ref(self.newest.load(Ordering::Acquire))
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.newest().depth + 1
    }

    /// Every node, newest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Node<T>> + '_ {
        self.newest().and_older()
    }

    /// Tries to add a node after `from`, whose value `make` builds from
    /// `from`; see the module docs. Returns [`Growth::Taken`] at once if
    /// another thread has claimed `from` (it is growing, or has grown, the
    /// chain from it).
    pub(crate) fn grow<E>(
        &self,
        from: &Node<T>,
        make: impl FnOnce(&Node<T>) -> Result<T, E>,
    ) -> Growth<E> {
        if !from.take_claim() {
            return Growth::Taken;
        }
        match make(from) {
            Ok(value) => self.publish(from, value),
            Err(error) => {
                #[cfg(loom)]
                if fault::active(Fault::KeepClaimOnFailure) {
                    // The negative control: the claim stays taken.
                    return Growth::Failed(error);
                }
                // ORDERING (G10): Relaxed; the claim publishes nothing, and the
                // next claimant reads only `from`, which is unchanged
                // (`growable.rs: growth_failure_reopens_the_claim`; negative
                // control `a_claim_kept_after_a_failed_growth_is_caught`).
                from.claim.swap(OPEN, Ordering::Relaxed);
                Growth::Failed(error)
            }
        }
    }

    /// Adds a node after `from` without taking its claim: for a caller
    /// that will not wait any longer for the claimant (see the module
    /// docs). Any number of threads may build a value at once; one node is
    /// published and the others are [`Growth::Lost`]. [`Growth::Lost`] at
    /// once, building nothing, if `from` already has a successor.
    pub(crate) fn grow_unclaimed<E>(
        &self,
        from: &Node<T>,
        make: impl FnOnce(&Node<T>) -> Result<T, E>,
    ) -> Growth<E> {
        if !std::ptr::eq(self.newest(), from) {
            return Growth::Lost;
        }
        match make(from) {
            Ok(value) => self.publish(from, value),
            Err(error) => Growth::Failed(error),
        }
    }

    /// Publishes a node of `value` after `from` if `from` is still the
    /// newest; otherwise drops it.
    fn publish<E>(&self, from: &Node<T>, value: T) -> Growth<E> {
        let node = Box::into_raw(Box::new(Node::after(value, from)));
        #[cfg(loom)]
        if fault::active(Fault::PublishByStore) {
            // The negative control: a store, which may replace a node
            // another thread has just published.
            // ORDERING: as below.
            self.newest.store(node, Ordering::Release);
            return Growth::Grown;
        }
        // ORDERING (G13, G14): Release on success, so that a thread that loads
        // this pointer (Acquire, in `newest`) sees the node initialised
        // (`growable.rs: reader_racing_growth_sees_an_initialised_sub_filter`;
        // negative control `relaxed_publish_is_caught`). Relaxed on failure:
        // the pointer read is not followed, only our node is dropped. The
        // compare-and-swap publishes one successor of `from` however many
        // threads built one (`growable.rs: a_stalled_grower_is_overtaken`;
        // negative control `publish_by_store_is_caught`). No ABA: nodes are
        // not freed while `&self` lives, so `from`'s address is not reused.
        match self.newest.compare_exchange(
            (from as *const Node<T>).cast_mut(),
            node,
            publish_ordering(),
            Ordering::Relaxed,
        ) {
            Ok(_) => Growth::Grown,
            Err(_) => {
                // SAFETY: `node` came from `Box::into_raw` just above and the
                // failed compare-and-swap did not publish it: no other thread
                // has seen it, and it is freed once, here.
                #[allow(unsafe_code)]
                drop(unsafe { Box::from_raw(node) });
                Growth::Lost
            }
        }
    }

    /// Drops every node but the first, which becomes the newest again and
    /// may be grown from.
    pub(crate) fn retain_first(&mut self) {
        // ORDERING: `&mut self`, no other thread can touch the chain.
        let newest = self.newest.load(Ordering::Relaxed);
        let first = node_ref(newest)
            .and_older()
            .last()
            .map(|n| n as *const Node<T>);
        let first = first.unwrap_or(newest).cast_mut();
        let mut node = newest.cast_const();
        while node != first.cast_const() {
            // SAFETY: as in `drop`: each node after the first came from
            // `Box::into_raw` here and is freed once, its link read first.
            #[allow(unsafe_code)]
            let owned = unsafe { Box::from_raw(node.cast_mut()) };
            node = owned.older;
        }
        // ORDERING: as above.
        self.newest.store(first, Ordering::Relaxed);
        node_ref(first).claim.swap(OPEN, Ordering::Relaxed);
    }
}

/// `Release`, or `Relaxed` with the negative control's fault injected (the
/// publication's success ordering).
#[inline]
fn publish_ordering() -> Ordering {
    #[cfg(loom)]
    if fault::active(Fault::RelaxedPublish) {
        return Ordering::Relaxed;
    }
    Ordering::Release
}

/// The node behind a pointer of a chain.
#[inline]
fn node_ref<'a, T>(node: *const Node<T>) -> &'a Node<T> {
    // SAFETY: every pointer passed here is `newest` or an `older` link of a
    // live chain: non-null, from `Box::into_raw`, and initialised before it
    // was published (Release/Acquire on `newest`, see the module docs). Nodes
    // are freed only with `&mut Chain`, so none is freed while the `&Chain`
    // the caller borrowed lives, and the callers tie `'a` to that borrow.
    #[allow(unsafe_code)]
    unsafe {
        &*node
    }
}

impl<T> Drop for Chain<T> {
    fn drop(&mut self) {
        // ORDERING: `&mut self`, no other thread can touch the chain.
        let mut node = self.newest.load(Ordering::Relaxed).cast_const();
        while !node.is_null() {
            // SAFETY: `node` came from `Box::into_raw` in this chain and is
            // freed once: we walk each link once, reading it before the free.
            #[allow(unsafe_code)]
            let owned = unsafe { Box::from_raw(node.cast_mut()) };
            node = owned.older;
        }
    }
}

impl<T> Node<T> {
    fn first(value: T) -> Node<T> {
        Node {
            value,
            older: std::ptr::null(),
            depth: 0,
            claim: AtomicU64::new(OPEN),
        }
    }

    fn after(value: T, older: *const Node<T>) -> Node<T> {
        Node {
            value,
            depth: node_ref(older).depth + 1,
            older,
            claim: AtomicU64::new(OPEN),
        }
    }

    /// The node's value.
    #[inline]
    pub(crate) fn value(&self) -> &T {
        &self.value
    }

    /// How many nodes are older: 0 for the first.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// This node, then every older one, newest first.
    pub(crate) fn and_older(&self) -> impl Iterator<Item = &Node<T>> + '_ {
        std::iter::successors(Some(self), |node| {
            (!node.older.is_null()).then(|| node_ref(node.older))
        })
    }

    /// Every node older than this one, newest first.
    pub(crate) fn older(&self) -> impl Iterator<Item = &Node<T>> + '_ {
        self.and_older().skip(1)
    }

    /// Takes the claim to grow from this node; `false` if another thread
    /// holds it (or held it and grew the chain).
    fn take_claim(&self) -> bool {
        #[cfg(loom)]
        if fault::active(Fault::SplitGrowthClaim) {
            // The negative control: a load and a separate write.
            // ORDERING: as below.
            if self.claim.load(Ordering::Relaxed) != OPEN {
                return false;
            }
            self.claim.swap(CLAIMED, Ordering::Relaxed);
            return true;
        }
        // ORDERING (G10): Relaxed. Only the atomicity of the compare-and-swap
        // matters (one winner per node); the claim publishes nothing, and
        // the claimant reads `from`, which it already holds
        // (`growable.rs: threads_crossing_the_threshold_add_one_sub_filter`;
        // negative control `split_growth_claim_is_caught`).
        self.claim
            .compare_exchange(OPEN, CLAIMED, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn grows_once_per_node_and_lists_newest_first() {
        let chain = Chain::new(1);
        let first = chain.newest();
        assert!(matches!(
            chain.grow(first, |n| Ok::<_, ()>(n.value() * 2)),
            Growth::Grown
        ));
        // The old node is claimed for good: growing from it again is taken.
        assert!(matches!(
            chain.grow(first, |_| Ok::<_, ()>(99)),
            Growth::Taken
        ));
        assert!(matches!(
            chain.grow(chain.newest(), |n| Ok::<_, ()>(n.value() * 2)),
            Growth::Grown
        ));
        let values: Vec<_> = chain.iter().map(|n| (*n.value(), n.depth())).collect();
        assert_eq!(values, [(4, 2), (2, 1), (1, 0)]);
        assert_eq!(chain.len(), 3);
        assert_eq!(chain.newest().older().count(), 2);
    }

    #[test]
    fn a_failed_growth_reopens_the_claim() {
        let chain = Chain::new("a");
        assert!(matches!(
            chain.grow(chain.newest(), |_| Err("no")),
            Growth::Failed("no")
        ));
        assert_eq!(chain.len(), 1);
        assert!(matches!(
            chain.grow(chain.newest(), |_| Ok::<_, ()>("b")),
            Growth::Grown
        ));
        assert_eq!(*chain.newest().value(), "b");
    }

    #[test]
    fn an_unclaimed_growth_publishes_past_a_claim_and_never_from_an_old_node() {
        let chain = Chain::new(1);
        let first = chain.newest();
        // A claimant that never finishes: its claim is taken.
        assert!(first.take_claim());
        assert!(matches!(
            chain.grow_unclaimed(first, |_| Ok::<_, ()>(2)),
            Growth::Grown
        ));
        // `first` has a successor now: nothing is built.
        let mut built = false;
        let again = chain.grow_unclaimed(first, |_| {
            built = true;
            Ok::<_, ()>(3)
        });
        assert!(matches!(again, Growth::Lost) && !built);
        assert_eq!(chain.iter().map(|n| *n.value()).collect::<Vec<_>>(), [2, 1]);
    }

    #[test]
    fn a_chain_read_back_cannot_grow_from_an_old_node() {
        let chain = Chain::from_values(1, [2, 3]);
        let oldest = chain.iter().last().unwrap();
        assert!(matches!(
            chain.grow(oldest, |_| Ok::<_, ()>(0)),
            Growth::Taken
        ));
        assert!(matches!(
            chain.grow(chain.newest(), |_| Ok::<_, ()>(4)),
            Growth::Grown
        ));
        assert_eq!(
            chain.iter().map(|n| *n.value()).collect::<Vec<_>>(),
            [4, 3, 2, 1]
        );
    }

    #[test]
    fn retain_first_and_drop_free_every_node() {
        use std::rc::Rc;
        let token = Rc::new(());
        let mut chain = Chain::new(token.clone());
        chain.grow(chain.newest(), |_| Ok::<_, ()>(token.clone()));
        chain.grow(chain.newest(), |_| Ok::<_, ()>(token.clone()));
        assert_eq!(Rc::strong_count(&token), 4);
        chain.retain_first();
        assert_eq!((Rc::strong_count(&token), chain.len()), (2, 1));
        // The first node is open to growth again.
        assert!(matches!(
            chain.grow(chain.newest(), |_| Ok::<_, ()>(token.clone())),
            Growth::Grown
        ));
        drop(chain);
        assert_eq!(Rc::strong_count(&token), 1);
    }
}
