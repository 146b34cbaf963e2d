package dev.gpucomm.runtime.fabric;

/**
 * One connection NCCL set up from this rank: the peer, the transport class and NCCL's own words for
 * it ({@code P2P/CUMEM/read}, {@code NET/IB/0/GDRDMA}, {@code NET/Socket/0}).
 */
public record PeerConnection(int fromRank, int toRank, TransportClass transport, String detail) {}
