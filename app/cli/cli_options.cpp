#include "cli_options.h"

#include "engine/util/error.h"

#include <cctype>

namespace shardscope::cli {

namespace {

/// `value` as an integer of at least `least` (0 or 1); throws InputError naming `option` otherwise.
int integerAtLeast(const std::string& option, const std::string& value, int least) {
    bool digits = !value.empty() && value.size() < 10;
    for (char c : value)
        digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits || std::stoi(value) < least)
        throw InputError(option + " " + value + (least == 1 ? ": expected a positive integer" : ": expected a whole number"));
    return std::stoi(value);
}

int positiveInt(const std::string& option, const std::string& value) { return integerAtLeast(option, value, 1); }

/// "auto" is for the search only: it chooses the setting; other commands need a value.
void autoOption(const CliOptions& o, const std::string& option) {
    if (o.command != "search")
        throw InputError(option + " auto: only search chooses a setting; give a value");
}

} // namespace

std::string usageText() {
    return "usage:\n"
           "  shardscope-cli models | clusters [--json]   list presets with their parameters\n"
           "  shardscope-cli evaluate --model NAME|PATH [--set key=value ...] --cluster NAME|PATH [--nodes N]\n"
           "                 [--mesh data=16,model=8] [--strategy dp|megatron|megatron-sp|zero1|zero2|zero3|fsdp|"
           "A+B|PLAN.json]\n"
           "                 [--batch B] [--microbatches M] [--recompute none|selective|full] [--zero 0|1|2|3]\n"
           "                 [--attention fused|unfused] [--overlap on|off] [--tp-overlap off|backward|full]\n"
           "                 [--precision bf16|fp8|mxfp8] [--loss unfused|fused] [--optimizer adam|sgd]\n"
           "                 [--bucket-mb 25] [--plan-out PLAN.json] [--json]\n"
           "                 pipelined: --mesh pipe=P,data=..,model=.. [--schedule 1f1b|gpipe|interleaved]\n"
           "                 [--virtual-stages V] [--stages 0-11,12-23,...]\n"
           "  shardscope-cli search --model ... --cluster ... [--nodes N] [--mesh auto|data=..,model=..]\n"
           "                 [--zero auto|0-3] [--recompute auto|none|selective|full] [--microbatches auto|M]\n"
           "                 (a setting not given is auto: the search chooses it with the strategies)\n"
           "                 [--algo auto|tapas|pase|brute] [--lock PLAN.json] [--threads N] [--plan-out PLAN.json] [--json]\n"
           "  shardscope-cli search --model ... --cluster ... --mesh data=..,model=.. --tactics FILE.tactics.json\n"
           "                 [--plan-out PLAN.json] [--json]        build the plan tactic by tactic (PartIR)\n"
           "  shardscope-cli explain --model ... --cluster ... --plan PLAN.json --op NAME [--json]\n"
           "                                                   why this op is split as it is\n"
           "  shardscope-cli simulate ... --strategy NAME|PLAN.json\n"
           "                 [--trace out.json] [--events out.json] [--devices all|0-7,64] [--json]\n"
           "  shardscope-cli export --format megatron|deepspeed|torchtitan|jax|dtensor --model ... --cluster ...\n"
           "                 [--mesh ...] --strategy NAME|PLAN.json [--out FILE]   the plan as Megatron-LM\n"
           "                 arguments, a DeepSpeed config, a torchtitan TOML, a JAX module or a PyTorch DTensor\n"
           "                 module (refused, naming the ops, when the framework cannot express it)\n"
           "  shardscope-cli import F.onnx [--set batch=N] [--set seq=N] [--set NAME=N] [--out F.model.json] [--json]\n"
           "                 an ONNX file as a graph: folded, fused and opaque ops; --out writes *.model.json\n"
           "  shardscope-cli calibrate --cluster NAME|PATH --measurements M.json [--fit device|links|overlap|NAME,...]\n"
           "                 [--out C2.cluster.json] [--json]\n"
           "                 fit the cluster's efficiencies to measured step times (least squares)\n"
           "  shardscope-cli bench [--quick] [--suite all|speed|quality|fidelity|clock] [--fidelity] [--check] [--json]\n"
           "                 [--only TEXT] [--instructions]\n"
           "                 search speed and plan quality (medians of several runs, one thread); rows that miss\n"
           "                 their target are marked MISSED, and with --check the exit status is then 1; --only\n"
           "                 runs the rows whose name contains TEXT; --instructions counts each row's search\n"
           "                 once under valgrind's callgrind\n"
           "Exit status: 0 on success, 2 on bad input (one line on stderr names the problem).\n";
}

CliOptions parseCliOptions(const std::vector<std::string>& args) {
    CliOptions o;
    if (args.empty())
        throw InputError("missing command (models, clusters, evaluate); try --help");
    o.command = args.front();
    bool planGiven = false;
    // --help anywhere (after a command too: "bench --help") asks for the usage.
    for (const std::string& a : args)
        if (a == "--help" || a == "-h" || o.command == "help") {
            o.command = "help";
            return o;
        }
    if (o.command != "models" && o.command != "clusters" && o.command != "evaluate" && o.command != "search" &&
        o.command != "bench" && o.command != "simulate" && o.command != "explain" && o.command != "calibrate" &&
        o.command != "export" && o.command != "import")
        throw InputError("unknown command '" + o.command.substr(0, 40) +
                         "' (models, clusters, evaluate, search, simulate, explain, export, import, bench, calibrate)");
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                throw InputError(a + ": missing value");
            if (args[i + 1].empty()) // --plan-out "", --devices "": never meant
                throw InputError(a + ": empty value");
            return args[++i];
        };
        if (a == "--json")
            o.json = true;
        else if (o.command == "import" && !a.starts_with("--") && o.scenario.model.spec.empty())
            o.scenario.model.spec = a; // import F.onnx
        else if (a == "--model")
            o.scenario.model.spec = value();
        else if (a == "--set")
            o.scenario.model.sets.push_back(value());
        else if (a == "--batch")
            o.scenario.model.batch = positiveInt(a, value());
        else if (a == "--cluster")
            o.scenario.cluster = value();
        else if (a == "--nodes")
            o.scenario.nodes = positiveInt(a, value());
        else if (a == "--mesh")
            o.scenario.mesh = value();
        else if ((a == "--strategy" && o.command != "search") || (a == "--plan" && o.command == "explain")) {
            o.scenario.strategy = value();
            planGiven = true;
        }
        else if (a == "--tactics" && o.command == "search")
            o.tacticsPath = value();
        else if (a == "--op" && o.command == "explain")
            o.explainOp = value();
        else if (a == "--microbatches") {
            const std::string& v = value();
            if (v == "auto")
                autoOption(o, a);
            else
                o.scenario.microbatches = positiveInt(a, v);
        } else if (a == "--recompute") {
            const std::string& v = value();
            if (v == "auto") {
                autoOption(o, a);
            } else {
                o.scenario.recompute = parseRecompute(v);
                if (!o.scenario.recompute)
                    throw InputError("--recompute " + v + ": expected " +
                                     std::string(o.command == "search" ? "auto, " : "") + "none, selective or full");
            }
        } else if (a == "--precision") {
            const std::string& v = value();
            o.scenario.precision = parsePrecision(v);
            if (!o.scenario.precision)
                throw InputError("--precision " + v + ": expected bf16, fp8 or mxfp8");
        } else if (a == "--attention") {
            const std::string& v = value();
            o.scenario.attention = parseAttention(v);
            if (!o.scenario.attention)
                throw InputError("--attention " + v + ": expected fused or unfused");
        } else if (a == "--zero") {
            const std::string& v = value();
            if (v == "auto")
                autoOption(o, a);
            else if (v.size() == 1 && v[0] >= '0' && v[0] <= '3')
                o.scenario.zeroStage = v[0] - '0';
            else
                throw InputError("--zero " + v + ": expected " + std::string(o.command == "search" ? "auto, " : "") +
                                 "0, 1, 2 or 3");
        } else if (a == "--optimizer") {
            const std::string& v = value();
            o.scenario.optimizer = parseOptimizer(v);
            if (!o.scenario.optimizer)
                throw InputError("--optimizer " + v + ": expected adam or sgd");
        } else if (a == "--measurements" && o.command == "calibrate")
            o.measurements = value();
        else if (a == "--out" && (o.command == "calibrate" || o.command == "export" || o.command == "import")) {
            o.out = value();
            if (o.out.empty())
                throw InputError("--out: expected a file name");
        } else if (a == "--format" && o.command == "export")
            o.exportFormat = value();
        else if (a == "--fit" && o.command == "calibrate") {
            const std::string& v = value();
            std::size_t from = 0;
            while (from <= v.size()) {
                const std::size_t comma = std::min(v.find(',', from), v.size());
                if (comma == from)
                    throw InputError("--fit " + v + ": expected names separated by commas");
                o.fit.push_back(v.substr(from, comma - from));
                from = comma + 1;
            }
        }
        else if (a == "--plan-out")
            o.planOut = value();
        else if (a == "--algo" && o.command == "search")
            o.algorithm = value();
        else if (a == "--lock" && o.command == "search")
            o.lockPlan = value();
        else if (a == "--overlap") {
            const std::string& v = value();
            if (v != "on" && v != "off")
                throw InputError(a + " " + v + ": expected on or off");
            o.scenario.overlap = v == "on";
        } else if (a == "--schedule") {
            const std::string& v = value();
            if (v == "auto") {
                autoOption(o, a);
            } else {
                o.scenario.schedule = parseSchedule(v);
                if (!o.scenario.schedule)
                    throw InputError(a + " " + v + ": expected " + std::string(o.command == "search" ? "auto, " : "") +
                                     "1f1b, gpipe or interleaved");
            }
        } else if (a == "--virtual-stages") {
            const std::string& v = value();
            if (v == "auto")
                autoOption(o, a);
            else
                o.scenario.virtualStages = positiveInt(a, v);
        } else if (a == "--stages") {
            o.scenario.stages = value();
            if (o.scenario.stages.empty())
                throw InputError("--stages: expected block ranges such as 0-11,12-23");
        } else if (a == "--loss") {
            const std::string& v = value();
            o.scenario.loss = parseLoss(v);
            if (!o.scenario.loss)
                throw InputError(a + " " + v + ": expected unfused or fused");
        } else if (a == "--tp-overlap") {
            const std::string& v = value();
            o.scenario.tpOverlap = parseTpOverlap(v);
            if (!o.scenario.tpOverlap)
                throw InputError(a + " " + v + ": expected off, backward or full");
        } else if (a == "--bucket-mb") {
            const std::string& v = value();
            double mb = 0;
            try {
                std::size_t used = 0;
                mb = std::stod(v, &used);
                if (used != v.size())
                    mb = 0;
            } catch (const std::exception&) {
                mb = 0;
            }
            if (!(mb >= kMinBucketMb && mb <= kMaxBucketMb))
                throw InputError("--bucket-mb " + v + ": expected megabytes between 0.001 and 100000");
            o.scenario.bucketBytes = mb * 1e6;
        } else if (a == "--trace" && o.command == "simulate")
            o.tracePath = value();
        else if (a == "--events" && o.command == "simulate")
            o.eventsPath = value();
        else if (a == "--devices" && o.command == "simulate")
            o.devices = value();
        else if (a == "--quick" && o.command == "bench")
            o.quick = true;
        else if (a == "--check" && o.command == "bench")
            o.check = true;
        else if (a == "--suite" && o.command == "bench") {
            const std::string& v = value();
            if (v != "all" && v != "speed" && v != "quality" && v != "fidelity" && v != "clock")
                throw InputError("--suite " + v + ": expected all, speed, quality, fidelity or clock");
            o.benchSuite = v;
        } else if (a == "--fidelity" && o.command == "bench")
            o.benchSuite = "fidelity";
        else if (a == "--only" && o.command == "bench")
            o.benchOnly = value();
        else if (a == "--instructions" && o.command == "bench")
            o.instructions = true;
        else if (a == "--count" && o.command == "bench")
            o.countScenario = integerAtLeast(a, value(), 0);
        else if (a == "--threads" && o.command == "search")
            o.threads = positiveInt(a, value());
        else
            throw InputError("unknown option '" + a + "'; try --help");
    }
    if (o.command == "explain" && o.explainOp.empty())
        throw InputError("explain: --op NAME is required");
    if (o.command == "explain" && !planGiven)
        throw InputError("explain: --plan PLAN.json (or a baseline name) is required");
    if (o.command == "export" && o.exportFormat.empty())
        throw InputError("export: --format megatron|deepspeed|torchtitan|jax|dtensor is required");
    if (o.command == "import" && o.scenario.model.spec.empty())
        throw InputError("import: the ONNX file is required (shardscope-cli import F.onnx [--set batch=N] [--out F.model.json])");
    if (o.command == "evaluate" || o.command == "search" || o.command == "simulate" || o.command == "explain" ||
        o.command == "export") {
        if (o.scenario.model.spec.empty())
            throw InputError(o.command + ": --model is required");
        if (o.scenario.cluster.empty())
            throw InputError(o.command + ": --cluster is required");
    }
    if (o.command == "calibrate" && (o.scenario.cluster.empty() || o.measurements.empty()))
        throw InputError("calibrate: --cluster C and --measurements M.json are required");
    if (o.command == "search") {
        o.meshAuto = o.scenario.mesh.empty() || o.scenario.mesh == "auto";
        if (o.meshAuto)
            o.scenario.mesh.clear();
        if (!o.tacticsPath.empty() && o.meshAuto)
            throw InputError("search --tactics: tactics act on named mesh axes; give --mesh data=..,model=..");
        if (!o.tacticsPath.empty() && !o.lockPlan.empty())
            throw InputError("search: --tactics and --lock do not combine (tactics fix their own shardings)");
        o.open = OpenSettings{!o.scenario.zeroStage, !o.scenario.recompute, !o.scenario.microbatches,
                              !o.scenario.schedule && !o.scenario.virtualStages};
    }
    return o;
}

} // namespace shardscope::cli
