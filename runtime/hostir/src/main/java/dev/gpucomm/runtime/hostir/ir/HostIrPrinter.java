package dev.gpucomm.runtime.hostir.ir;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Writes a program in nvFuser's {@code %HostIrContainer { ... }} form, two spaces per nesting
 * level, so that dumps read like the ones in nvFuser's reviews. Unlike nvFuser it names the main
 * stream instead of printing its address, leaves out IterDomain numbers and device meshes (the team
 * of each communication says which ranks take part), and writes stream-parallel loops as {@code FOR
 * i in istreamIdx{n}}.
 */
public final class HostIrPrinter {
  private static final String INDENT = "  ";

  private final StringBuilder text = new StringBuilder();
  private final String team;

  private HostIrPrinter(int teamSize) {
    this.team =
        IntStream.range(0, teamSize)
            .mapToObj(Integer::toString)
            .collect(Collectors.joining(" ", "(", ")"));
  }

  public static String print(Program program) {
    HostIrPrinter printer = new HostIrPrinter(program.teamSize());
    printer
        .text
        .append("%HostIrContainer { ")
        .append(tensors(program.inputs()))
        .append(" -> ")
        .append(tensors(program.outputs()))
        .append(" :\n");
    printer.block(program.body(), 1);
    printer.text.append("} // %HostIrContainer\n");
    return printer.text.toString();
  }

  private static String tensors(List<Tensor> tensors) {
    return tensors.stream().map(Tensor::toString).collect(Collectors.joining(", ", "(", ")"));
  }

  private void block(List<Statement> statements, int depth) {
    for (Statement statement : statements) {
      statement(statement, depth);
    }
  }

  private void line(int depth, String content) {
    text.append(INDENT.repeat(depth)).append(content).append('\n');
  }

  private void statement(Statement statement, int depth) {
    switch (statement) {
      case Allocate allocate -> {
        Tensor tensor = allocate.tensor();
        line(
            depth,
            tensor
                + " = ALLOCATE(buffer="
                + tensor
                + ", mem_type=global, size="
                + tensor.localElements()
                + ", zero_init=false, resets_to_zero=false)");
      }
      case ForLoop loop -> {
        line(depth, loopHeader(loop));
        block(loop.body(), depth + 1);
      }
      case IfThenElse branch -> {
        line(depth, "IF " + branch.condition() + ":");
        block(branch.then(), depth + 1);
        if (!branch.otherwise().isEmpty()) {
          line(depth, "ELSE:");
          block(branch.otherwise(), depth + 1);
        }
      }
      case GetCurrentStream get -> line(depth, "GetCurrentStream into " + get.into());
      case SetCurrentStream set -> line(depth, "SetCurrentStream to " + set.stream());
      case Synchronize synchronize -> line(depth, "Synchronize " + synchronize.stream());
      case ShardByStream shard ->
          line(
              depth,
              shard.out()
                  + " = ShardByStream("
                  + shard.in()
                  + ", stream_index = "
                  + shard.index()
                  + ")");
      case Copy copy -> line(depth, copy.out() + " = Set( " + copy.in() + " )");
      case Matmul matmul -> {
        String continuation = INDENT.repeat(depth) + " ".repeat("   = matmul(".length());
        line(depth, matmul.out().toString());
        text.append(INDENT.repeat(depth))
            .append("   = matmul(")
            .append(matmul.a())
            .append(",\n")
            .append(continuation)
            .append(matmul.b())
            .append(" )\n");
      }
      case Communication communication -> line(depth, communication(communication));
      case ShareMemHandles share ->
          line(
              depth,
              share.communications().stream()
                  .map(this::communication)
                  .collect(Collectors.joining(", ", "ShareMemHandles(", ")")));
      case Wait wait -> line(depth, "Wait Communication " + wait.communicationId());
      case StartCoalescing start -> line(depth, "StartCoalescing");
      case EndCoalescing end -> line(depth, "EndCoalescing");
    }
  }

  private static String loopHeader(ForLoop loop) {
    if (loop.streamParallel()
        && loop.start() instanceof IndexExpr.Constant(long start)
        && start == 0
        && loop.stop() instanceof IndexExpr.Constant(long stop)) {
      return "FOR " + loop.index() + " in istreamIdx{" + stop + "}:";
    }
    return "FOR " + loop.index() + " from " + loop.start() + " to " + loop.stop() + ":";
  }

  private String communication(Communication communication) {
    String backend = "backend=" + communication.backend().wireName().toUpperCase();
    return switch (communication) {
      case AllReduce allReduce ->
          collective(allReduce.id(), "Allreduce", "", allReduce.input(), allReduce.output())
              + backend
              + ")";
      case Allgather allgather ->
          collective(allgather.id(), "Allgather", "", allgather.input(), allgather.output())
              + backend
              + ")";
      case Broadcast broadcast ->
          collective(
                  broadcast.id(),
                  "Broadcast",
                  "root=" + broadcast.root() + ", ",
                  broadcast.input(),
                  broadcast.output())
              + backend
              + ")";
      case CollectivePermute permute ->
          collective(permute.id(), "CollectivePermute", "", permute.input(), permute.output())
              + "send_peer="
              + permute.sendPeer()
              + ", recv_peer="
              + permute.recvPeer()
              + ", "
              + backend
              + ")";
      case P2PCommunication p2p ->
          "P2PCommunication "
              + p2p.id()
              + " (type="
              + p2p.direction().printed()
              + ", buffer="
              + p2p.buffer()
              + ", peer="
              + p2p.peer()
              + ", "
              + backend
              + ")";
    };
  }

  private String collective(int id, String type, String extra, Tensor input, Tensor output) {
    return "Communication "
        + id
        + " (type="
        + type
        + ", team="
        + team
        + ", "
        + extra
        + "input="
        + input
        + ", output="
        + output
        + ", ";
  }
}
