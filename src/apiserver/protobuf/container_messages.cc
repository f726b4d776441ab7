// k8s.io/api/core/v1/generated.proto: Container and what it holds, plus the security context
// messages PodSecurityContext shares with it. Windows options are left out.
#include "apiserver/protobuf/messages.h"

namespace nodewright::apiserver::protobuf {
namespace {

using namespace field;

constexpr Field kContainerPortFields[] = {
    str(1, "name"),     i32(2, "hostPort"), i32(3, "containerPort").keep(),
    str(4, "protocol"), str(5, "hostIP"),
};
constexpr MessageDescriptor kContainerPort{"ContainerPort", kContainerPortFields};

constexpr Field kObjectFieldSelectorFields[] = {str(1, "apiVersion"), str(2, "fieldPath").keep()};
constexpr MessageDescriptor kObjectFieldSelector{"ObjectFieldSelector", kObjectFieldSelectorFields};

constexpr Field kResourceFieldSelectorFields[] = {
    str(1, "containerName"), str(2, "resource").keep(), quantity(3, "divisor")};
constexpr MessageDescriptor kResourceFieldSelector{"ResourceFieldSelector",
                                                   kResourceFieldSelectorFields};

// ConfigMapKeySelector and SecretKeySelector share one layout.
constexpr Field kKeySelectorFields[] = {inlined(1, kLocalObjectReference), str(2, "key").keep(),
                                        boolean(3, "optional").keep()};
constexpr MessageDescriptor kKeySelector{"KeySelector", kKeySelectorFields};

constexpr Field kEnvVarSourceFields[] = {
    message(1, "fieldRef", kObjectFieldSelector),
    message(2, "resourceFieldRef", kResourceFieldSelector),
    message(3, "configMapKeyRef", kKeySelector),
    message(4, "secretKeyRef", kKeySelector),
};
constexpr MessageDescriptor kEnvVarSource{"EnvVarSource", kEnvVarSourceFields};

constexpr Field kEnvVarFields[] = {str(1, "name").keep(), str(2, "value"),
                                   message(3, "valueFrom", kEnvVarSource)};
constexpr MessageDescriptor kEnvVar{"EnvVar", kEnvVarFields};

// ConfigMapEnvSource and SecretEnvSource share one layout.
constexpr Field kEnvSourceFields[] = {inlined(1, kLocalObjectReference),
                                      boolean(2, "optional").keep()};
constexpr MessageDescriptor kEnvSource{"EnvSource", kEnvSourceFields};

constexpr Field kEnvFromSourceFields[] = {str(1, "prefix"), message(2, "configMapRef", kEnvSource),
                                          message(3, "secretRef", kEnvSource)};
constexpr MessageDescriptor kEnvFromSource{"EnvFromSource", kEnvFromSourceFields};

constexpr Field kResourceClaimFields[] = {str(1, "name").keep(), str(2, "request")};
constexpr MessageDescriptor kResourceClaim{"ResourceClaim", kResourceClaimFields};

constexpr Field kResizePolicyFields[] = {str(1, "resourceName").keep(),
                                         str(2, "restartPolicy").keep()};
constexpr MessageDescriptor kResizePolicy{"ContainerResizePolicy", kResizePolicyFields};

constexpr Field kVolumeMountFields[] = {
    str(1, "name").keep(),      boolean(2, "readOnly"), str(7, "recursiveReadOnly").keep(),
    str(3, "mountPath").keep(), str(4, "subPath"),      str(5, "mountPropagation").keep(),
    str(6, "subPathExpr"),
};
constexpr MessageDescriptor kVolumeMount{"VolumeMount", kVolumeMountFields};

constexpr Field kVolumeDeviceFields[] = {str(1, "name").keep(), str(2, "devicePath").keep()};
constexpr MessageDescriptor kVolumeDevice{"VolumeDevice", kVolumeDeviceFields};

constexpr Field kExecActionFields[] = {repeated(str(1, "command"))};
constexpr MessageDescriptor kExecAction{"ExecAction", kExecActionFields};

constexpr Field kHttpHeaderFields[] = {str(1, "name").keep(), str(2, "value").keep()};
constexpr MessageDescriptor kHttpHeader{"HTTPHeader", kHttpHeaderFields};

constexpr Field kHttpGetActionFields[] = {
    str(1, "path"),
    intOrString(2, "port"),
    str(3, "host"),
    str(4, "scheme"),
    repeated(message(5, "httpHeaders", kHttpHeader)),
};
constexpr MessageDescriptor kHttpGetAction{"HTTPGetAction", kHttpGetActionFields};

constexpr Field kTcpSocketActionFields[] = {intOrString(1, "port"), str(2, "host")};
constexpr MessageDescriptor kTcpSocketAction{"TCPSocketAction", kTcpSocketActionFields};

constexpr Field kGrpcActionFields[] = {i32(1, "port").keep(), str(2, "service").keep()};
constexpr MessageDescriptor kGrpcAction{"GRPCAction", kGrpcActionFields};

constexpr Field kProbeHandlerFields[] = {
    message(1, "exec", kExecAction),
    message(2, "httpGet", kHttpGetAction),
    message(3, "tcpSocket", kTcpSocketAction),
    message(4, "grpc", kGrpcAction),
};
constexpr MessageDescriptor kProbeHandler{"ProbeHandler", kProbeHandlerFields};

constexpr Field kProbeFields[] = {
    inlined(1, kProbeHandler),
    i32(2, "initialDelaySeconds"),
    i32(3, "timeoutSeconds"),
    i32(4, "periodSeconds"),
    i32(5, "successThreshold"),
    i32(6, "failureThreshold"),
    i64(7, "terminationGracePeriodSeconds").keep(),
};
constexpr MessageDescriptor kProbe{"Probe", kProbeFields};

constexpr Field kSleepActionFields[] = {i64(1, "seconds").keep()};
constexpr MessageDescriptor kSleepAction{"SleepAction", kSleepActionFields};

constexpr Field kLifecycleHandlerFields[] = {
    message(1, "exec", kExecAction),
    message(2, "httpGet", kHttpGetAction),
    message(3, "tcpSocket", kTcpSocketAction),
    message(4, "sleep", kSleepAction),
};
constexpr MessageDescriptor kLifecycleHandler{"LifecycleHandler", kLifecycleHandlerFields};

constexpr Field kLifecycleFields[] = {
    message(1, "postStart", kLifecycleHandler),
    message(2, "preStop", kLifecycleHandler),
    str(3, "stopSignal").keep(),
};
constexpr MessageDescriptor kLifecycle{"Lifecycle", kLifecycleFields};

constexpr Field kCapabilitiesFields[] = {repeated(str(1, "add")), repeated(str(2, "drop"))};
constexpr MessageDescriptor kCapabilities{"Capabilities", kCapabilitiesFields};

constexpr Field kSeLinuxOptionsFields[] = {str(1, "user"), str(2, "role"), str(3, "type"),
                                           str(4, "level")};
constexpr MessageDescriptor kSeLinuxOptions{"SELinuxOptions", kSeLinuxOptionsFields};

// SeccompProfile and AppArmorProfile share one layout.
constexpr Field kProfileFields[] = {str(1, "type").keep(), str(2, "localhostProfile").keep()};
constexpr MessageDescriptor kProfile{"Profile", kProfileFields};

constexpr Field kSecurityContextFields[] = {
    message(1, "capabilities", kCapabilities),
    boolean(2, "privileged").keep(),
    message(3, "seLinuxOptions", kSeLinuxOptions),
    i64(4, "runAsUser").keep(),
    i64(8, "runAsGroup").keep(),
    boolean(5, "runAsNonRoot").keep(),
    boolean(6, "readOnlyRootFilesystem").keep(),
    boolean(7, "allowPrivilegeEscalation").keep(),
    str(9, "procMount").keep(),
    message(11, "seccompProfile", kProfile),
    message(12, "appArmorProfile", kProfile),
};
constexpr MessageDescriptor kSecurityContext{"SecurityContext", kSecurityContextFields};

constexpr Field kSysctlFields[] = {str(1, "name").keep(), str(2, "value").keep()};
constexpr MessageDescriptor kSysctl{"Sysctl", kSysctlFields};

constexpr Field kPodSecurityContextFields[] = {
    message(1, "seLinuxOptions", kSeLinuxOptions),
    i64(2, "runAsUser").keep(),
    i64(6, "runAsGroup").keep(),
    boolean(3, "runAsNonRoot").keep(),
    repeated(i64(4, "supplementalGroups")),
    str(12, "supplementalGroupsPolicy").keep(),
    i64(5, "fsGroup").keep(),
    repeated(message(7, "sysctls", kSysctl)),
    str(9, "fsGroupChangePolicy").keep(),
    message(10, "seccompProfile", kProfile),
    message(11, "appArmorProfile", kProfile),
    str(13, "seLinuxChangePolicy").keep(),
};

constexpr Field kContainerFields[] = {
    str(1, "name").keep(),
    str(2, "image"),
    repeated(str(3, "command")),
    repeated(str(4, "args")),
    str(5, "workingDir"),
    repeated(message(6, "ports", kContainerPort)),
    repeated(message(19, "envFrom", kEnvFromSource)),
    repeated(message(7, "env", kEnvVar)),
    message(8, "resources", kResourceRequirements),
    repeated(message(23, "resizePolicy", kResizePolicy)),
    str(24, "restartPolicy").keep(),
    repeated(message(9, "volumeMounts", kVolumeMount)),
    repeated(message(21, "volumeDevices", kVolumeDevice)),
    message(10, "livenessProbe", kProbe),
    message(11, "readinessProbe", kProbe),
    message(22, "startupProbe", kProbe),
    message(12, "lifecycle", kLifecycle),
    str(13, "terminationMessagePath"),
    str(20, "terminationMessagePolicy"),
    str(14, "imagePullPolicy"),
    message(15, "securityContext", kSecurityContext),
    boolean(16, "stdin"),
    boolean(17, "stdinOnce"),
    boolean(18, "tty"),
};

constexpr Field kResourceRequirementsFields[] = {
    mapOf(quantity(1, "limits")),
    mapOf(quantity(2, "requests")),
    repeated(message(3, "claims", kResourceClaim)),
};

}  // namespace

constinit const MessageDescriptor kResourceRequirements{"ResourceRequirements",
                                                        kResourceRequirementsFields};
constinit const MessageDescriptor kPodSecurityContext{"PodSecurityContext",
                                                      kPodSecurityContextFields};
constinit const MessageDescriptor kContainer{"Container", kContainerFields};

}  // namespace nodewright::apiserver::protobuf
